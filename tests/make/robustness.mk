# robustness.mk -- fuzzing, the differential test against Redis and hostile
# clients, included by the Makefile.
#
# make fuzz SECONDS=N: each libFuzzer target (RESP parser, SET's state machine,
# the newest step's whole command path) for N seconds, after replaying every
# input that once crashed; tests/fuzz/run.sh takes the build flags from make
# print-build-vars. make compat OPS=N: seeded random command sequences sent to
# each step and to a real redis-server in lockstep, every reply compared, plus
# the expiry-safety model. make hostile: the hostile-client suite against the
# newest step. make test runs short versions of all three.

SECONDS ?= 60
OPS ?= 3000
.PHONY: fuzz compat hostile
fuzz:
	@bash tests/fuzz/run.sh all $(SECONDS)
compat: all
	@BUILD=$(BUILD) STEPS="$(STEPS)" bash tests/compat/run.sh $(OPS)
hostile: all
	@SERVER=$(abspath $(BUILD)/$(NEWEST)/server) bats --tap tests/hostile
