# unit.mk -- the Check unit tests, included by the Makefile.
#
# tests/unit/test_*.c test common/. tests/NN-name/unit_*.c test a step's
# modules and link with that step's files except main.c, from an archive, and
# with the common/ objects its server links (the Makefile's
# common_objects_of: a step's own copy of a common/ file replaces it), so
# that a test links only the files it uses: unit_timewheel.c needs
# timewheel.o and nothing of the server. A test that walks a dict includes
# the step's dict.c (tests/helpers/dict_inspect.h), so the archive's dict.o is
# then never taken; only the test's own source is compiled (the others
# among its prerequisites are the headers and files it includes).

CHECK_FLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS  = $(shell pkg-config --libs check 2>/dev/null)
UNIT_COMMON := $(if $(COMMON_SRC),$(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c)))
UNIT_STEPS  := $(patsubst tests/%.c,$(BUILD)/unit/%,$(wildcard $(STEPS:%=tests/%/unit_*.c)))
UNIT_BINS   := $(UNIT_COMMON) $(UNIT_STEPS)

$(BUILD)/unit/%: tests/unit/%.c $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(CHECK_FLAGS) -Icommon $(filter %.c %.o,$^) -o $@ $(CHECK_LIBS)

# For each step: its archive, and the rule for its unit tests.
define STEP_UNIT_RULES
$(BUILD)/$(1)/modules.a: $(filter-out $(BUILD)/$(1)/main.o,$(call objects_of,$(1)))
	rm -f $$@ && $$(AR) rcs $$@ $$^
$(BUILD)/unit/$(1)/%: tests/$(1)/%.c $(BUILD)/$(1)/modules.a $(call common_objects_of,$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(DEPFLAGS) $$(CHECK_FLAGS) -DSTEP_NAME='"$(1)"' -I$(call common_dir,$(1)) -Isteps/$(1) \
	  $$< $$(filter %.a %.o,$$^) -o $$@ $$(CHECK_LIBS) $$(LDLIBS) $(LIBS_$(1))
endef
$(foreach s,$(STEPS),$(eval $(call STEP_UNIT_RULES,$(s))))

.PHONY: unit
unit: check-deps $(UNIT_BINS)
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" ONLY_UNIT=1 bash tests/run.sh
