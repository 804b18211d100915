# exercises.mk -- grading the chapters' exercises, included by the Makefile.
#
# make exercise STEP=NN EX=K [SERVER=path|workspace|redis-server]: run the
# grader of exercise K of chapter NN (tests/exercises/NN-name/exK.bats)
# against SERVER: by default your workspace for it, workspace/NN-name-exK/
# (make workspace STEP=NN EX=K), built as workspace.mk says, when it exists;
# else this step's own build, build/NN-name/server, which the grader fails.
# make exercise-check: every grader against its solution (docs/solutions/),
# the unmodified step and a real redis-server (make check runs it too). It
# builds the solutions with the Makefile's flags (make print-build-vars).

.PHONY: exercise exercise-check
EXERCISE_NEEDS ?= all
exercise: check-grade-deps $(EXERCISE_NEEDS)
	@BUILD=$(BUILD) bash tests/exercises/grade.sh "$(STEP)" "$(EX)" "$(SERVER)"

exercise-check: check-exercise-deps all
	@BUILD=$(BUILD) bash tests/exercises/check.sh
