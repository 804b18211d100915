# starter.mk -- tools for instructors, included by the Makefile; see
# docs/instructors.md.
#
# make starter STEP=NN DEST=dir [EX=K] [EXCERPTS=hide]: a git repository for
# students with the chapter's workspace and graders and none of its answer
# (tests/tools/starter.sh); EXCERPTS=hide also replaces the chapter's code
# excerpts by notes naming each function and its contract.
# make grade-class STEP=NN SUBMISSIONS=dir [EX=K] [OUT=dir] [TIMEOUT=s]: grade
# every student's copy of that starter, each in a sandbox; reports in OUT,
# default build/class/NN-name (tests/tools/grade_class.sh).
# make classroom STEP=NN [DEST=dir]: GitHub Classroom's autograding files,
# one test per stage (tests/tools/classroom.sh).

.PHONY: starter grade-class classroom
starter:
	@test -n "$(STEP)" -a -n "$(DEST)" || { echo "usage: make starter STEP=NN DEST=dir [EX=K] [EXCERPTS=hide]" >&2; exit 2; }
	@bash tests/tools/starter.sh "$(STEP)" "$(DEST)" "$(EX)" "$(EXCERPTS)"

grade-class:
	@test -n "$(STEP)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade-class STEP=NN SUBMISSIONS=dir [EX=K] [OUT=dir]" >&2; exit 2; }
	@TIMEOUT="$(TIMEOUT)" bash tests/tools/grade_class.sh "$(STEP)" "$(SUBMISSIONS)" "$(OUT)" "$(EX)"

classroom:
	@test -n "$(STEP)" || { echo "usage: make classroom STEP=NN [DEST=dir]" >&2; exit 2; }
	@bash tests/tools/classroom.sh "$(STEP)" "$(DEST)"
