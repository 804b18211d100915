# build-vars.mk -- the Makefile's build flags, for scripts, included by the
# Makefile.
#
# Scripts that compile step files themselves (tests/exercises/check.sh,
# tests/fuzz/run.sh) take the flags from make instead of repeating them:
#   eval "$(make -s --no-print-directory print-build-vars STEP=NN)"
# sets CC, CFLAGS (all of them), PROJECT_CFLAGS (the project's part, for a
# build with flags of its own such as the fuzzers'), COMMON_SRC (common/ with
# the one event-loop back end) and, for STEP, STEP_CFLAGS (the step's name)
# and STEP_LIBS (its libraries), STEP_INC (where it finds common/'s headers:
# -Icommon, or the copy of common/ made for a step that holds its own copy of
# a common/ file) and STEP_COMMON_SRC (the common/ sources it links: those of
# COMMON_SRC it holds no copy of, from that directory). The switches given
# to the make that runs the script (POLL=1, WERROR=1, CFLAGS=...) count here
# too.

.PHONY: print-build-vars
print-build-vars: $(if $(STEP_DIR),$(call common_copy_of,$(STEP_DIR)))
	@echo "CC='$(CC)'"
	@echo "CFLAGS='$(CFLAGS)'"
	@echo "PROJECT_CFLAGS='$(PROJECT_CFLAGS)'"
	@echo "COMMON_SRC='$(COMMON_SRC)'"
	@echo "STEP_CFLAGS='$(if $(STEP_DIR),-DSTEP_NAME=\"$(STEP_DIR)\")'"
	@echo "STEP_LIBS='$(strip $(LDLIBS) $(LIBS_$(STEP_DIR)))'"
	@echo "STEP_INC='$(if $(STEP_DIR),-I$(call common_dir,$(STEP_DIR)))'"
	@echo "STEP_COMMON_SRC='$(if $(STEP_DIR),$(call common_sources_of,$(STEP_DIR)))'"
