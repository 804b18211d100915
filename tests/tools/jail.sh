#!/usr/bin/env bash
# jail.sh -- run one of a student's programs (the server a suite starts, a
# unit-test binary) in a sandbox of its own, inside the class grader's:
#
#   jail.sh COMMAND [ARGS...]      (SERVER_JAIL=/class/tests/tools/jail.sh)
#
# The class grader (tests/tools/grade_class.sh) runs make grade in one
# bubblewrap sandbox per student. Without this, the student's code would run
# there as the grader's own user, beside the grader: it could reopen the
# grader's output through /proc/PID/fd/1 and append a grade line, write the
# JUnit files, keep bats's output descriptor open so that bats waits for it,
# or leave a daemon behind. In here, it cannot:
#   - its own pid namespace: it sees no process of the grader's, and every
#     process it starts dies with it (the kernel kills a namespace's
#     processes when its first one exits);
#   - its own user namespace and a lower process limit (JAIL_NPROC), so a
#     fork bomb leaves the grader processes to finish with; no file it
#     writes grows past JAIL_FSIZE (its log among them);
#   - no open descriptor but stdin, stdout and stderr (the server's log);
#   - everything read-only but the directories a server is given: its
#     current directory when that lies under /tmp or SERVER_DIR_BASE (the
#     server's own SERVER_DIR, where it writes dump.rdb), and the directory
#     of a --dir argument; and a private /tmp of JAIL_TMP bytes.
# It keeps the network namespace: the suites talk to the server on
# 127.0.0.1. SIGTERM and SIGINT sent to this script go to COMMAND, and its
# exit status is COMMAND's, so a suite stops a jailed server as any other.
# When COMMAND exits leaving processes behind, one line on its stderr (the
# server's log) says how many were killed.
#   jail.sh --inside COMMAND...   (the jail's own second half, run in there)
set -u
JAIL_NPROC=${JAIL_NPROC:-256}
JAIL_TMP=${JAIL_TMP:-$((256 * 1024 * 1024))}
JAIL_FSIZE=${JAIL_FSIZE:-$((256 * 1024 * 1024))}

# wait_child: wait for $child, the child started last, passing
# SIGTERM and SIGINT on to the process target_pid names; its status in $status.
child=""
forward() { kill -"$1" "$(target_pid)" 2>/dev/null; }
trap 'forward TERM' TERM
trap 'forward INT' INT
wait_child() {
  # wait returns early (128 + the signal) when a trapped signal arrives:
  # wait again until the child has really exited. If it exited just after
  # such a return, its status is still to be had; once had, wait says 127.
  local again
  while :; do
    wait "$child"
    status=$?
    kill -0 "$child" 2>/dev/null || break
  done
  wait "$child" 2>/dev/null
  again=$?
  [ "$again" = 127 ] || status=$again
}

if [ "${1:-}" = --inside ]; then
  # The namespace's second process, under bubblewrap's init: COMMAND's
  # parent, so that it sees what COMMAND leaves behind.
  shift
  "$@" &
  child=$!
  target_pid() { echo "$child"; }
  wait_child
  # Still here but not counted: bubblewrap's init (1) and this shell.
  left=0
  for p in /proc/[0-9]*; do
    case ${p#/proc/} in 1 | "$$") ;; *) left=$((left + 1)) ;; esac
  done
  [ "$left" -gt 0 ] && echo "jail: $1 left $left process(es) behind; they are killed with its sandbox" >&2
  exit "$status"
fi

# Close every descriptor above stderr (bats's fd 3 among them) first.
for fd in "/proc/$$/fd"/*; do
  fd=${fd##*/}
  [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
done

writable=()
case $PWD in /tmp/?* | "${SERVER_DIR_BASE:-/tmp}"/?*) writable=(--bind "$PWD" "$PWD") ;; esac
prev=""
for arg in "$@"; do
  [ "$prev" = --dir ] && [ -d "$arg" ] && writable+=(--bind "$(realpath "$arg")" "$(realpath "$arg")")
  prev=$arg
done
info=$(mktemp) || exit 1
prlimit --nproc="$JAIL_NPROC" --fsize="$JAIL_FSIZE" -- \
  bwrap --unshare-pid --die-with-parent --new-session \
  --ro-bind / / --proc /proc --dev /dev --size "$JAIL_TMP" --tmpfs /tmp "${writable[@]}" \
  --chdir "$PWD" --info-fd 9 -- "$0" --inside "$@" 9>"$info" &
child=$!
# The --inside half: the one child of the namespace's first process
# (bubblewrap's init, whose pid the info file gives).
target_pid() {
  local init kids
  init=$(sed -n 's/.*"child-pid": *\([0-9]*\).*/\1/p' "$info")
  read -r kids _ <"/proc/${init:-0}/task/${init:-0}/children" 2>/dev/null
  echo "${kids:-$child}"
}
wait_child
rm -f "$info"
exit "$status"
