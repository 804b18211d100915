# workspace.mk -- writing a step yourself, included by the Makefile.
#
# make workspace STEP=NN copies step NN-1 to workspace/NN-name/ (ignored by
# git); make test STEP=NN SERVER=workspace builds it like a step, into
# build/workspace/NN-name/server, and grades it; so does make exercise
# STEP=NN EX=K SERVER=workspace, with the exercise's grader.

.PHONY: workspace
workspace:
	@bash tests/tools/workspace.sh "$(STEP)"

ifeq ($(SERVER),workspace)
WS_NAME := $(STEP_DIR)
WS_BIN  := $(BUILD)/workspace/$(WS_NAME)/server
$(WS_BIN): $(wildcard workspace/$(WS_NAME)/*.c workspace/$(WS_NAME)/*.h) $(COMMON_OBJ)
	@test -n "$(STEP)" -a -d "workspace/$(WS_NAME)" || { echo "no workspace for STEP=$(STEP): run make workspace STEP=NN first"; exit 1; }
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DSTEP_NAME='"$(WS_NAME)"' -Icommon -Iworkspace/$(WS_NAME) \
	  $(filter %.c,$^) $(COMMON_OBJ) -o $@ $(LDLIBS) $(LIBS_$(WS_NAME))
test exercise: $(WS_BIN)
override SERVER := $(CURDIR)/$(WS_BIN)
endif
