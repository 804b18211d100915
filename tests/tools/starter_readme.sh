#!/usr/bin/env bash
# starter_readme.sh -- the README.md of a starter repository, for students.
#   starter_readme.sh STEP WORKSPACE [EX] [hide]     (run by starter.sh)
set -eu
step=$1 ws=$2 ex=${3:-} excerpts=${4:-}
num=${step%%-*}
if [ -n "$ex" ]; then
  task="exercise $ex of chapter $num: read the section \"Exercises\" of [docs/$step.md](docs/$step.md)"
  grade="make exercise STEP=$num EX=$ex SERVER=workspace"
  start="a copy of the chapter's finished step, \`steps/$step/\`"
else
  task="chapter $num: read [docs/$step.md](docs/$step.md)"
  grade="make grade STEP=$num"
  start="what the chapter starts from (for most chapters, a copy of the step before, with the chapter's new headers and skeletons of its new files)"
fi
docs_line="the chapters up to this one. Read them in order if you are new."
if [ "$excerpts" = hide ]; then
  docs_line="$docs_line
  In chapter $num, the code you are to write is not shown: where the
  chapter had it, a note names each function and its contract."
fi
grade_line=$(printf '    %-36s # build your workspace and grade it' "$grade")
cat <<EOF
# Chapter $num${ex:+, exercise $ex}: your assignment

This repository is a Redis-compatible server in C, built one chapter at a
time. The steps before this chapter are done, in \`steps/\`. Your job is
$task, and make the server in \`workspace/$ws/\` do what it describes.

## What is here

- \`docs/\`: $docs_line
- \`steps/\`: the finished steps before this one; each builds into
  \`build/NN-name/server\`.
- \`workspace/$ws/\`: your work. It starts as $start;
  you change it. Only this directory is graded.
- \`common/\`: the code every step shares (parser, event loop, buffers).
- \`tests/\`: the suites and graders. Do not change them: your work is graded
  with the original ones.

## Build, run and check

    make deps                            # the test tools (Debian/Ubuntu), once
    make                                 # build the finished steps
$grade_line
    make grade STEP=$num LIST=1            # what the grader checks, stage by stage

The grader runs its stages in order and stops at the first that fails,
printing the command it sent, the reply it expected and the reply it
received, and the section of the chapter that explains it. It fails until
your work is done: that is where you start.

To try your server by hand, build it with the grader and start it:

    build/workspace/$ws/server --port 7777
    redis-cli -p 7777 ping

\`make test\` runs the suites of the finished steps (a sanity check of your
machine); parts of the project that this repository does not include are
reported as skipped.

## Submit

Commit your work in \`workspace/$ws/\` and push (or hand in the repository
as your instructor says). Your instructor grades a fresh copy of this
starter with your \`workspace/$ws/\` in it, so changes outside that directory
are not graded.
EOF
