# exercises.mk -- grading the chapters' exercises, included by the Makefile.
#
# make exercise STEP=NN EX=K [SERVER=path|workspace|redis-server]: run the
# grader of exercise K of chapter NN (tests/exercises/NN-name/exK.bats)
# against SERVER, by default this step's build (build/NN-name/server, where an
# exercise done in steps/NN-name lands after make), or your workspace for it,
# workspace/NN-name-exK/ (make workspace STEP=NN EX=K), when it exists; built
# as workspace.mk says.
# make exercise-check: every grader against its solution (docs/solutions/),
# the unmodified step and a real redis-server (make test runs it too). It
# builds the solutions with the Makefile's flags (make print-build-vars).

.PHONY: exercise exercise-check
EXERCISE_NEEDS ?= all
exercise: check-deps $(EXERCISE_NEEDS)
	@BUILD=$(BUILD) bash tests/exercises/grade.sh "$(STEP)" "$(EX)" "$(SERVER)"

exercise-check: check-deps all
	@BUILD=$(BUILD) bash tests/exercises/check.sh
