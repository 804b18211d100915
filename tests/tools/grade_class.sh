#!/usr/bin/env bash
# grade_class.sh -- grade a whole class, each submission in a sandbox.
#
#   grade_class.sh NN SUBMISSIONS [OUT] [EX]   (make grade-class STEP=NN SUBMISSIONS=dir ...)
#
# Each subdirectory of SUBMISSIONS is one student's copy of the starter that
# `make starter STEP=NN [EX=K]` writes. Only the student's workspace is taken
# from it: it is copied into a fresh copy of a pristine starter, built here
# from the project, so a student cannot change the graders. That copy is
# built and graded (make grade, or make exercise for EX) inside bubblewrap:
# no network but its own loopback, the system directories read-only, the
# copy's graders, steps and prebuilt objects read-only, its workspace and
# build/workspace writable, a private HOME and a private /tmp of TMPSIZE
# (default 1G, in memory), the servers' directories in /servers, a disk of
# SERVERSIZE (default 256M) of their own, no other process or file of this machine
# visible; run by root, as an unprivileged user (uid 65534) so that the
# process limit holds; under limits of time (TIMEOUT seconds for the whole
# grade, default 600, and STAGE_TIMEOUT for each suite or unit-test binary
# of a stage, default 300), address space (MEMORY, default 4G per process),
# processes (NPROC, default 512) and file size (FSIZE, default 1G).
# Inside it, every program of the student's (the servers the suites start,
# the unit-test binaries) runs in a sandbox of its own, tests/tools/jail.sh:
# its own pid and user namespaces, nothing writable but its server's
# directory, no descriptor of the grader's, and half the process limit. So
# the grade comes from what the grader saw, in files and streams the
# student's code cannot reach.
# JOBS submissions are graded at once (default: the number of cores), in
# name order, with a line for each as it finishes.
#
# Writes OUT (default build/class/NN-name): grades.csv, grades.md,
# grades.html, summary.md, and per student, in students/NAME/: grade.txt
# (the grader's whole output), build.txt, junit.xml, and trail.md: each
# stage's time, what had to be killed or hit a limit, and the servers'
# output (capped) in servers/. tests/tools/class_report.py writes the
# tables from each student's result file.
set -u
want=${1:-} subs=${2:-} out=${3:-} ex=${4:-}
TIMEOUT=${TIMEOUT:-600} STAGE_TIMEOUT=${STAGE_TIMEOUT:-300} MEMORY=${MEMORY:-4G} NPROC=${NPROC:-512}
FSIZE=${FSIZE:-1G} TMPSIZE=${TMPSIZE:-1G} SERVERSIZE=${SERVERSIZE:-256M} JOBS=${JOBS:-$(nproc)}
SANDBOX_UID=${SANDBOX_UID:-65534}
if [ -z "$want" ] || [ ! -d "$subs" ]; then
  echo "usage: make grade-class STEP=NN SUBMISSIONS=dir [EX=K] [OUT=dir] [TIMEOUT=s]" >&2
  exit 2
fi
# Before cd: the paths are relative to where we were called.
subs=$(realpath "$subs")
[ -n "$out" ] && out=$(realpath -m "$out")
cd "$(dirname "$0")/../.." || exit 2
step=$(python3 tests/tools/stages.py step "$want") || exit 2
num=${step%%-*}
out=${out:-build/class/$step${ex:+-ex$ex}}
for tool in bwrap setpriv prlimit timeout; do
  command -v $tool >/dev/null || { echo "grade-class: $tool is not installed (make deps)" >&2; exit 2; }
done
# The process limit does not hold for root: as root, the sandbox runs as
# SANDBOX_UID. Run by anyone else, it runs as that user, whose other
# processes on this machine then count towards NPROC too.
as_user=()
if [ "$(id -u)" = 0 ]; then
  as_user=(setpriv --reuid="$SANDBOX_UID" --regid="$SANDBOX_UID" --clear-groups)
fi

# ---- The pristine starter, built once -------------------------------------------
# Its steps, common/ and unit tests are compiled here, so each sandbox only
# compiles the student's workspace. Copies keep the files' times: make finds
# them up to date.
work=$(mktemp -d)
chmod 711 "$work" # the sandbox user opens the copies below it
trap 'rm -rf "$work"' EXIT
pristine=$work/pristine
bash tests/tools/starter.sh "$num" "$pristine" "$ex" >/dev/null || exit 1
ws=$(cd "$pristine/workspace" && ls -d [0-9][0-9]-*/ | head -1) && ws=${ws%/}
unit_bins=$(make -s --no-print-directory -C "$pristine" --eval 'print-unit-bins: ; @echo $(UNIT_BINS)' print-unit-bins)
# shellcheck disable=SC2086 # a list of targets
nice make -s --no-print-directory -C "$pristine" -j2 all $unit_bins >"$work/prebuild.log" 2>&1 ||
  { echo "grade-class: the starter does not build:" >&2; tail -20 "$work/prebuild.log" >&2; exit 1; }
mkdir -p "$pristine/build/workspace"
target="build/workspace/$ws/server"
if [ -n "$ex" ]; then
  grade_cmd=(make -s --no-print-directory exercise STEP="$num" EX="$ex" SERVER=workspace)
else
  grade_cmd=(make -s --no-print-directory grade STEP="$num" SERVER=workspace ALL=1 JUNIT_DIR=/grading/junit
    STAGE_TIMEOUT="$STAGE_TIMEOUT" TRAIL_DIR=/grading/trail)
fi
plan=$(cd "$pristine" && python3 tests/tools/stages.py plan "$step") || exit 2
nstages=$(wc -l <<<"$plan")
first_stage=$(head -1 <<<"$plan" | cut -d$'\x1f' -f1)
# An exercise is graded as one stage, its grader (tests/exercises/NN-name/exK.bats).
[ -n "$ex" ] && nstages=1 first_stage=ex$ex

# ---- One submission ----------------------------------------------------------------
# copy_workspace FROM TO: the student's files, regular files and directories
# only (a symbolic link could point anywhere).
copy_workspace() {
  mkdir -p "$2"
  (cd "$1" && find . -type d -print0 | xargs -0 -I{} mkdir -p "$2/{}" &&
    find . -type f -print0 | xargs -0 -I{} cp --no-dereference "{}" "$2/{}")
}

# sandbox SCRATCH GRADING CMD...: run CMD in SCRATCH, mounted at /class, as
# the sandbox user, with the limits; GRADING (mounted at /grading) is where
# the grader writes its JUnit files.
sandbox() {
  local s=$1 g=$2
  shift 2
  local ro=() libs=() l
  for p in Makefile LICENSE .clang-format common steps tests docs build; do
    [ -e "$s/$p" ] && ro+=(--ro-bind "$s/$p" "/class/$p")
  done
  for l in lib64 lib32; do [ -e "/$l" ] && libs+=(--symlink "usr/$l" "/$l"); done
  # nice: grading is batch work; it gives way to whatever else the machine runs.
  nice -n 10 timeout -k 10 "$TIMEOUT" \
    "${as_user[@]}" \
    prlimit --as="$(numfmt --from=iec "$MEMORY")" --nproc="$NPROC" --fsize="$(numfmt --from=iec "$FSIZE")" -- \
    bwrap --unshare-all --die-with-parent --new-session \
    --ro-bind /usr /usr --ro-bind /etc /etc \
    --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib \
    "${libs[@]}" \
    --proc /proc --dev /dev --size "$(numfmt --from=iec "$TMPSIZE")" --tmpfs /tmp --dir /tmp/home \
    --size "$(numfmt --from=iec "$SERVERSIZE")" --tmpfs /servers \
    --bind "$s" /class "${ro[@]}" --bind "$s/build/workspace" /class/build/workspace \
    --bind "$g" /grading \
    --clearenv --setenv HOME /tmp/home --setenv PATH /usr/bin:/bin --setenv LANG C.UTF-8 \
    --setenv TMPDIR /tmp --setenv JAIL /class/tests/tools/jail.sh --setenv JAIL_NPROC $((NPROC / 2)) \
    --setenv SERVER_DIR_BASE /servers \
    --chdir /class "$@"
}

grade_one() { # grade_one NAME DIR
  local name=$1 dir=$2 dest=$out/students/$1 s=$work/scratch-$1 g=$work/grading-$1
  local start end status builds=no
  mkdir -p "$dest" && rm -f "$dest"/*
  rm -rf "$s" "$g"
  cp -a "$pristine" "$s"
  rm -rf "$s/workspace/$ws" "$s/.git" && mkdir -p "$s/workspace/$ws" "$g/junit" "$g/trail"
  start=$(date +%s)
  if [ ! -d "$dir/workspace/$ws" ]; then
    echo "no workspace/$ws/ in this submission" >"$dest/grade.txt"
    status=2
  elif [ -L "$dir" ] || [ -L "$dir/workspace" ] || [ -L "$dir/workspace/$ws" ]; then
    # Copied as root, a linked directory could bring any file of this machine in.
    echo "workspace/$ws/ is a symbolic link, or lies under one: not graded" >"$dest/grade.txt"
    status=2
  else
    copy_workspace "$dir/workspace/$ws" "$s/workspace/$ws"
    [ "${#as_user[@]}" = 0 ] || chown -R "$SANDBOX_UID:$SANDBOX_UID" "$s" "$g"
    {
      echo "== build: make $target"
      sandbox "$s" "$g" make -s --no-print-directory STEP="$num" ${ex:+EX="$ex"} SERVER=workspace "$target" 2>&1
      echo "== build status: $?"
    } >"$dest/build.txt"
    if grep -qx '== build status: 0' "$dest/build.txt"; then
      builds=yes
      sandbox "$s" "$g" "${grade_cmd[@]}" >"$dest/grade.txt" 2>&1
      status=$?
      [ "$status" = 124 ] || [ "$status" = 137 ] && echo "grade-class: stopped after TIMEOUT=$TIMEOUT seconds" >>"$dest/grade.txt"
    else
      status=2
      cp "$dest/build.txt" "$dest/grade.txt"
    fi
  fi
  end=$(date +%s)
  write_result "$dest" "$name" "$builds" "$status" $((end - start)) "$(limit_notes "$dest" "$g")"
  python3 tests/tools/class_report.py junit "$dest/grade.txt" "$g/junit" "$name" >"$dest/junit.xml"
  # The servers' output, as the grader kept it (grade.sh caps each log).
  for d in "$g"/trail/*/; do [ -d "$d" ] && mkdir -p "$dest/servers" && cp -r "$d" "$dest/servers/"; done
  python3 tests/tools/class_report.py trail "$dest" "$g/trail/stages" >"$dest/trail.md"
  rm -rf "$s" "$g"
}

# limit_notes DEST GRADING: what had to be killed or hit a limit, as the
# grader's output and the servers' logs (the jail's own lines) say it.
limit_notes() {
  local notes=() n
  grep -aq '^grade-class: stopped after TIMEOUT' "$1/grade.txt" && notes+=("stopped after TIMEOUT=$TIMEOUT s")
  n=$(grep -ac '^  stopped: .* ran past STAGE_TIMEOUT' "$1/grade.txt")
  [ "$n" -gt 0 ] && notes+=("$n suite(s) or unit test(s) ran past STAGE_TIMEOUT=$STAGE_TIMEOUT s")
  n=$(cat "$2"/trail/*/* 2>/dev/null | grep -ac '^jail: .* left [0-9]* process(es) behind')
  [ "$n" -gt 0 ] && notes+=("$n run(s) of its code left processes behind, killed")
  grep -aqiE 'fork: (retry: )?Resource temporarily unavailable|Cannot fork' "$1/grade.txt" &&
    notes+=("the process limit was reached")
  grep -aqE 'No space left on device|File size limit exceeded' "$1/grade.txt" "$2"/trail/*/* 2>/dev/null &&
    notes+=("a size limit was reached (TMPSIZE=$TMPSIZE, FSIZE=$FSIZE)")
  local IFS=';'
  echo "${notes[*]}" | sed 's/;/; /g'
}

# write_result DEST NAME BUILDS STATUS SECONDS NOTES: the student's row, from the
# grader's last line (grade.sh's "grade: stages P/T, points X/100, checks Y
# passed Z failed, first failing ID"), which only counts when it is the last
# line but make's own "make: *** ... Error 1", agrees with the exit status,
# and agrees with the stages the grader's output shows passing, one by one
# (stage_tally). A row that does not agree is refused: no points, and the
# reason in its note, before NOTES (limit_notes).
write_result() {
  local dest=$1 last stages="0/$nstages" points=0 passed=0 failed=0 first note="" tally
  last=$(grep -avE '^make(\[[0-9]+\])?: \*\*\* ' "$dest/grade.txt" | tail -1)
  first=$([ "$3" = yes ] && echo "$first_stage" || echo build)
  if [[ "$last" =~ ^grade:\ stages\ ([0-9]+/[0-9]+),\ points\ ([0-9]+)/100,\ checks\ ([0-9]+)\ passed\ ([0-9]+)\ failed,\ first\ failing\ (.+)$ ]]; then
    stages=${BASH_REMATCH[1]} points=${BASH_REMATCH[2]} passed=${BASH_REMATCH[3]} failed=${BASH_REMATCH[4]} first=${BASH_REMATCH[5]}
    tally=$(stage_tally "$dest/grade.txt")
    if { [ "$4" = 0 ] && [ "$first" != none ]; } || { [ "$4" != 0 ] && [ "$first" = none ]; }; then
      note="refused: the grade line says first failing $first, the grader's exit status was $4"
    elif [ "$tally" != "$stages $points $first" ]; then
      note="refused: the grade line says stages $stages, $points points, first failing $first; the stages shown passing say ${tally:-nothing}"
    fi
    [ -n "$note" ] && stages="0/$nstages" points=0 first=refused
  elif [ -n "$ex" ] && [ "$3" = yes ] && [ "$4" != 124 ] && [ "$4" != 137 ]; then
    # An exercise's grader is one bats file: its TAP lines and exit status.
    passed=$(grep -acE '^ok [0-9]+' "$dest/grade.txt") failed=$(grep -acE '^not ok [0-9]+' "$dest/grade.txt")
    if [ "$4" = 0 ]; then stages=1/1 points=100 first=none; else stages=0/1 first=ex$ex; fi
  elif [ "$4" = 124 ] || [ "$4" = 137 ]; then
    first=timeout
  fi
  [ -n "$note" ] && [ -n "$6" ] && note+="; "
  note+=$6
  printf 'student=%s\nbuilds=%s\nstages=%s\npoints=%s\npassed=%s\nfailed=%s\nfirst=%s\nseconds=%s\nnote=%s\n' \
    "$2" "$3" "$stages" "$points" "$passed" "$failed" "$first" "$5" "$note" >"$dest/result"
}

# stage_tally GRADE_TXT: "P/T POINTS FIRST" as the grader's stage lines
# show it: each "stage ID (N points): ..." line is a stage reached, passed
# when its next line of the kind is "  passed: ...", failed when "Stage ID
# failed"; a stage never reached counts as failed.
stage_tally() {
  awk -v total="$nstages" '
    /^stage [0-9][0-9]-[0-9]+ \([0-9]+ points\): / {
      id = $2; order[++n] = id; points[id] = substr($3, 2) + 0; next }
    /^  passed: / && id != "" { ok[id] = 1; id = ""; next }
    /^Stage [0-9][0-9]-[0-9]+ failed/ { id = ""; next }
    END {
      for (i = 1; i <= n; i++) if (ok[order[i]]) { p++; s += points[order[i]] } else if (first == "") first = order[i]
      if (first == "" && p < total) first = "?"
      printf "%d/%d %d %s\n", p, total, s, (first == "" ? "none" : first) }' "$1"
}

# reap_one: wait for one of the running graders, and show its line.
reap_one() {
  local pid
  wait -n -p pid "${!running[@]}"
  done=$((done + 1))
  progress "$done" "$count" "${running[$pid]}"
  unset "running[$pid]"
}

# progress DONE TOTAL NAME: the student's line, once graded.
progress() {
  local r=$out/students/$3/result
  printf '[%d/%d] %s: stages %s, %s points, first failing %s, %s s%s\n' "$1" "$2" "$3" \
    "$(sed -n 's/^stages=//p' "$r")" "$(sed -n 's/^points=//p' "$r")" "$(sed -n 's/^first=//p' "$r")" \
    "$(sed -n 's/^seconds=//p' "$r")" "$(sed -n 's/^note=\(..*\)/ (\1)/p' "$r")"
}

mkdir -p "$out/students"
rm -rf "${out:?}/students/"*
names=()
for dir in "$subs"/*/; do
  [ -d "$dir" ] && names+=("$(basename "$dir")")
done
count=${#names[@]} done=0
declare -A running=() # pid -> student
echo "grading $count submissions of $step${ex:+ exercise $ex}, $JOBS at a time"
for sub_dir in "${names[@]}"; do
  name=$(tr -c 'A-Za-z0-9._\n-' _ <<<"$sub_dir")
  while [ "${#running[@]}" -ge "$JOBS" ]; do reap_one; done
  grade_one "$name" "$subs/$sub_dir" &
  running[$!]=$name
done
while [ "${#running[@]}" -gt 0 ]; do reap_one; done
python3 tests/tools/class_report.py tables "$out" "$step${ex:+ exercise $ex}" "$nstages"
echo "graded $count submissions: $out/grades.md, grades.csv, grades.html, summary.md"
