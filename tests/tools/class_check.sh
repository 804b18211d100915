#!/usr/bin/env bash
# class_check.sh -- checks make starter and make grade-class on chapter 05.
#
# Builds a starter for chapter 05 and a class of nine submissions:
#   reference   steps/05-active-sampling copied into the workspace;
#   unchanged   the starter as handed out;
#   broken      a workspace that does not compile;
#   escaper     the reference, plus code at the top of main() that tries to
#               write files outside its copy (in this project's tree, in
#               another submission, in a directory of this test), to
#               connect to a port this test listens on, on 127.0.0.1 only,
#               outside the sandbox, and to read a solution and another
#               submission (if it can, it exits: no full marks);
# and five more whose code, at the top of main(), attacks the grade itself:
#   forger      the unchanged starter, appending a passing grade line and
#               TAP lines to every descriptor it can reach (its own, and
#               every process's through /proc/PID/fd);
#   junit       the unchanged starter, writing a passing JUnit report into
#               each stage's directory of the grader's JUnit files;
#   daemon      the reference, leaving a process behind that holds the
#               server's descriptors and sleeps for ever;
#   binder      the reference, leaving a process behind that holds the 64
#               ports above its own, where the grader looks for free ones;
#   filler      the reference, writing its directory full and trying its
#               copy of the workspace.
# Each must get its true grade: the forger and junit 0 points like the
# unchanged starter, the daemon, binder and filler full marks in about the
# reference's time, with a note of what was killed or hit a limit.
# The same starter made with EXCERPTS=hide must differ only in chapter 05's
# text (and its README), where each excerpt of steps/05 is a note naming its
# function and contract, and the excerpt check must pass with nothing
# skipped.
# First the escaper's server is run once outside any sandbox, to prove its
# attempts work there; then make grade-class must give full marks, the first
# stage failing, a build error, and full marks while every write and the
# connection were refused; grades.csv must have its header, and the
# reference's row the numbers of its grade; the reports must be there;
# nothing outside the scratch copies may change (the submissions and the
# project tree, checksummed before and after); and a second run grades alike.
# Prints TAP ("ok N - ...", "not ok N - ..." with "#" lines saying what was
# expected and what came). Needs bwrap (make deps) and root or a working
# setpriv. Takes four to five minutes; QUICK=1 skips the fork bomb (about
# one minute).
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
STEP=05-active-sampling
. tests/helpers/tap.sh # ok, not_ok, skip, check, diag; counts in n, failed

tmp=$(mktemp -d)
chmod 755 "$tmp"
listener_pid=""
cleanup() {
  [ -n "$listener_pid" ] && kill "$listener_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- A listener on 127.0.0.1, outside any sandbox ------------------------------
# It counts the connections it accepts in $tmp/connections.
start_listener() {
  python3 - "$tmp/port" "$tmp/connections" <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
count = 0
while True:
    c, _ = s.accept()
    count += 1
    open(sys.argv[2], "w").write(str(count))
    c.close()
PY
  listener_pid=$!
  for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  port=$(cat "$tmp/port")
}

# ---- The starter and the class ---------------------------------------------------
# escape_code PORT FILES...: C code that tries each write and the
# connection, then reads a solution of this project and a classmate's
# work: if either can be opened it leaves a mark ($tmp/outside/read) and
# exits, which costs it its grade.
escape_code() {
  local port=$1 f
  shift
  echo '#include <arpa/inet.h>'
  echo '#include <stdio.h>'
  echo '#include <sys/socket.h>'
  echo '#include <unistd.h>'
  echo 'static void try_to_escape(void) {'
  for f in "$@"; do
    echo "  { FILE *f = fopen(\"$f\", \"w\"); if (f) { fputs(\"escaped\\n\", f); fclose(f); } }"
  done
  echo '  int fd = socket(AF_INET, SOCK_STREAM, 0);'
  echo "  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons($port)};"
  echo '  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);'
  echo '  if (fd >= 0) { (void)connect(fd, (struct sockaddr *)&a, sizeof a); close(fd); }'
  for f in "${reads[@]}"; do
    echo "  { FILE *r = fopen(\"$f\", \"r\"); if (r) { fclose(r); FILE *m = fopen(\"$tmp/outside/read\", \"w\"); if (m) fclose(m); exit(3); } }"
  done
  echo '}'
}

make_class() {
  local subs=$tmp/submissions ws
  make -s --no-print-directory starter STEP=05 DEST="$tmp/starter" >/dev/null || return 1
  ws=workspace/$STEP
  mkdir -p "$subs"
  for s in reference unchanged broken escaper "${HOSTILE[@]}"; do git clone -q "$tmp/starter" "$subs/$s"; done
  for s in reference escaper daemon binder filler; do
    rm -rf "${subs:?}/$s/$ws" && cp -r "steps/$STEP" "$subs/$s/$ws"
  done
  printf '\nthis line is not C;\n' >>"$subs/broken/$ws/main.c"
  mkdir -p "$tmp/outside"
  targets=("$tmp/outside/escaped" "$ROOT/escaped-from-class-check" "$subs/reference/escaped")
  reads=("$ROOT/docs/solutions/$STEP-ex1.patch" "$subs/reference/$ws/main.c")
  escape_code "$port" "${targets[@]}" >"$tmp/escape.c"
  call_first_in_main "$subs/escaper/$ws/main.c" "$tmp/escape.c" try_to_escape || return 1
  for s in "${HOSTILE[@]}"; do
    "${s}_code" >"$tmp/$s.c"
    call_first_in_main "$subs/$s/$ws/main.c" "$tmp/$s.c" "hostile_$s" || return 1
  done
}

# ---- The submissions that attack the grade -----------------------------------------
# Each is a C function, hostile_ and its submission's name, called first in main().
HOSTILE=(forger junit daemon binder filler)
hostile_includes() {
  printf '#include <%s>\n' arpa/inet.h dirent.h errno.h fcntl.h signal.h stdio.h stdlib.h string.h \
    sys/socket.h sys/stat.h unistd.h
}
forger_code() {
  hostile_includes
  cat <<'C'
static void hostile_forger(void) {
  const char *line = "grade: stages 6/6, points 100/100, checks 99 passed 0 failed, first failing none\n";
  const char *tap = "ok 1 forged\nok 2 forged\n";
  for (int fd = 0; fd < 256; fd++) {
    (void)!write(fd, line, strlen(line));
    (void)!write(fd, tap, strlen(tap));
  }
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char path[300];
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    for (int fd = 1; fd <= 3; fd++) {
      snprintf(path, sizeof path, "/proc/%s/fd/%d", e->d_name, fd);
      int f = open(path, O_WRONLY | O_APPEND);
      if (f >= 0) {
        (void)!write(f, line, strlen(line));
        close(f);
      }
    }
  }
  if (d) closedir(d);
}
C
}
junit_code() {
  hostile_includes
  cat <<'C'
static void hostile_junit(void) {
  static const char *stages[] = {"05-1", "05-2", "05-3", "05-4", "05-5", "05-6", "earlier"};
  char path[200];
  for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
    snprintf(path, sizeof path, "/grading/junit/%s", stages[i]);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "/grading/junit/%s/report.xml", stages[i]);
    FILE *f = fopen(path, "w");
    if (!f) continue;
    fputs("<testsuites><testsuite name=\"forged\" tests=\"1\" failures=\"0\">"
          "<testcase name=\"forged\"/></testsuite></testsuites>\n", f);
    fclose(f);
  }
}
C
}
daemon_code() {
  hostile_includes
  cat <<'C'
static void hostile_daemon(void) {
  if (fork() == 0) {
    setsid();
    for (;;) pause();
  }
}
C
}
binder_code() {
  hostile_includes
  cat <<'C'
static void hostile_binder(void) {
  if (fork() != 0) return;
  for (int port = 20000; port < 20064; port++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0) listen(fd, 1);
  }
  for (;;) pause();
}
C
}
filler_code() {
  hostile_includes
  cat <<'C'
static void hostile_filler(void) {
  static char block[1 << 20];
  signal(SIGXFSZ, SIG_IGN); /* a file at its size limit: the next file */
  const char *copy[] = {"/class/workspace/05-active-sampling/filled", "/class/build/workspace/filled"};
  for (size_t i = 0; i < 2; i++) {
    FILE *f = fopen(copy[i], "w");
    if (f) fclose(f);
  }
  for (int n = 0;; n++) {
    char name[32];
    snprintf(name, sizeof name, "fill.%d", n);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) break;
    ssize_t w = 0;
    while ((w = write(fd, block, sizeof block)) == (ssize_t)sizeof block) {
    }
    close(fd);
    if (w < 0 && errno != EFBIG) {
      perror("filler");
      break;
    }
  }
}
C
}

# call_first_in_main MAIN_C CODE_FILE FUNCTION: put the code above main()
# (not at the top: the file's feature macros come first) and call FUNCTION
# first thing in main().
call_first_in_main() {
  awk -v code="$2" -v fn="$3" '/^int main\(int argc, char \*\*argv\) \{$/ {
      while ((getline line < code) > 0) print line
      print; print "  " fn "();"; next }
    { print }' "$1" >"$1.new" && mv "$1.new" "$1"
  grep -q "^  $3();" "$1"
}

# A server that forks until it cannot (the children wait forever), then never
# answers: the process limit must hold and the time limit end it.
hog_code() {
  cat <<'C'
#include <sys/types.h>
#include <unistd.h>
static void hog(void) {
  while (fork() >= 0) {
  }
  for (;;) pause();
}
C
}

# The escaper's server, built and run once here, outside the sandbox: its
# attempts must work, or their failure in the sandbox would prove nothing.
control_run() {
  local c=$tmp/control
  cp -r "$tmp/starter" "$c" && rm -rf "$c/workspace/$STEP" && cp -r "$tmp/submissions/escaper/workspace/$STEP" "$c/workspace/"
  make -s --no-print-directory -C "$c" STEP=05 SERVER=workspace "build/workspace/$STEP/server" >/dev/null 2>&1 || return 1
  "$c/build/workspace/$STEP/server" --port 0 >/dev/null 2>&1 &
  local pid=$!
  sleep 0.5
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rm -rf "$c"
}

# fingerprint DIR [PRUNE...]: every path and every file's checksum.
fingerprint() {
  local dir=$1 prune=()
  shift
  for p in "$@"; do prune+=(-path "$dir/$p" -prune -o); done
  find "$dir" "${prune[@]}" -print0 | sort -z | xargs -0 sha256sum 2>/dev/null | sha256sum | cut -d' ' -f1
  find "$dir" "${prune[@]}" -print | sort | sha256sum | cut -d' ' -f1
}

escaped_files() { # how many of the escaper's target files exist
  local f count=0
  for f in "${targets[@]}" "$tmp/outside/read"; do [ -e "$f" ] && count=$((count + 1)); done
  echo "$count"
}

field() { # field STUDENT COLUMN: from grades.csv
  python3 -c 'import csv,sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
print(rows.get(sys.argv[2], {}).get(sys.argv[3], "(no row)"))' "$1/grades.csv" "$2" "$3"
}

# hostile_checks OUT: the five submissions that attack the grade got their
# true grades (see the top of this file).
hostile_checks() {
  local o=$1 ref_s
  check "forger: graded as the unchanged starter: 0 points, first failing $first" "0 $first" \
    "$(field "$o" forger points) $(field "$o" forger first_failing_stage)"
  check "forger: its forged grade line reached no output of the grader's, only its servers' logs" "0 yes" \
    "$(grep -c '^grade: stages 6/6, points 100/100, checks 99' "$o/students/forger/grade.txt") $(
      cat "$o"/students/forger/servers/*/* 2>/dev/null | grep -q '^grade: stages 6/6, points 100/100' && echo yes || echo no)"
  check "junit: graded as the unchanged starter (0 points), its junit.xml has failures and no forged suite" "0 yes 0" \
    "$(field "$o" junit points) $(python3 -c 'import sys,xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print("yes" if int(r.get("failures")) > 0 else "no", sum(1 for s in r.iter("testsuite") if "forged" in s.get("name", "")))' \
      "$o/students/junit/junit.xml" 2>&1)"
  ref_s=$(field "$o" reference seconds)
  for s in daemon binder; do
    check "$s: full marks, and a note that what it left behind was killed" "$nst/$nst 100 none yes" \
      "$(field "$o" $s stages_passed)/$(field "$o" $s stages_total) $(field "$o" $s points) $(field "$o" $s first_failing_stage) $(
        field "$o" $s note | grep -q 'left processes behind, killed' && echo yes || echo "no: note '$(field "$o" $s note)'")"
  done
  check "daemon: graded in about the reference's time ($ref_s s): at most twice that and 30 s" yes \
    "$([ "$(field "$o" daemon seconds)" -le $((2 * ref_s + 30)) ] && echo yes || echo "no: $(field "$o" daemon seconds) s")"
  check "filler: full marks, with a note that a size limit was reached" "100 none yes" \
    "$(field "$o" filler points) $(field "$o" filler first_failing_stage) $(
      field "$o" filler note | grep -q 'a size limit was reached' && echo yes || echo "no: note '$(field "$o" filler note)'")"
  check "the graders' own tmpfs and the servers' disk are the sandbox's: no file the filler wrote is left" 0 \
    "$(find "${TMPDIR:-/tmp}" -maxdepth 4 -name 'fill.[0-9]*' 2>/dev/null | wc -l)"
}

echo "1..49"
start_listener
if make_class; then ok "a starter for chapter 05 and four submissions"; else not_ok "a starter for chapter 05 and four submissions"; exit 1; fi

check "the starter has no steps/05 or later, no solutions, no benchmarks, one commit" \
  "absent absent absent 1" \
  "$(cd "$tmp/starter" && for p in "steps/$STEP" docs/solutions docs/benchmarks.md; do [ -e "$p" ] && echo -n "present " || echo -n "absent "; done
     ls -d steps/0[6-9]-* steps/[1-9][0-9]-* 2>/dev/null; git rev-list --count HEAD)"

# The chapters' links to what the starter does not hold (later chapters,
# benchmarks, solutions, steps/05) are plain text: none leads nowhere.
check "every link in the starter's chapters names a file the starter holds" "0" \
  "$(cd "$tmp/starter/docs" && grep -ohE '[^!]\[[^][]+\]\([^)#[:space:]][^)[:space:]]*\)' ./*.md |
     sed -E 's/.*\]\(([^)#]*).*/\1/' | grep -vE '^[a-z]+:' | sort -u |
     while read -r t; do [ -e "$t" ] || echo "$t"; done | wc -l)"

# ---- EXCERPTS=hide: chapter 05 without the code the student writes -------------
# The same starter but for its chapter text (and the README saying so); in
# it each excerpt of steps/05 is a note naming the function and its
# contract, and the excerpt check passes without skipping any.
hide_checks() {
  local hs=$tmp/starter-hide doc=docs/$STEP.md own_lines contract plain hidden status
  if make -s --no-print-directory starter STEP=05 DEST="$hs" EXCERPTS=hide >"$tmp/hide.log" 2>&1; then
    ok "make starter STEP=05 EXCERPTS=hide"
  else
    not_ok "make starter STEP=05 EXCERPTS=hide"
    diag <"$tmp/hide.log"
  fi
  check "the hide-starter differs from the starter only in chapter 05's text and the README" \
    "Files $tmp/starter/README.md and $hs/README.md differ
Files $tmp/starter/$doc and $hs/$doc differ" \
    "$(diff -rq -x .git "$tmp/starter" "$hs" 2>&1)"
  # The code lines of the project's chapter-05 excerpts of steps/05 (those
  # long enough to be unmistakable): none may be left in the hide-starter.
  own_lines=$(python3 - "$doc" "steps/$STEP/" <<'PY'
import sys
sys.path.insert(0, "tests/tools")
import excerpts, pathlib
for _, name, body in excerpts.excerpts(pathlib.Path(sys.argv[1])):
    if name.startswith(sys.argv[2]):
        print("\n".join(line.strip() for line in body if len(line.strip()) >= 20))
PY
  )
  check "none of the $(wc -l <<<"$own_lines") code lines of chapter 05's own excerpts is in the hide-starter's chapter" \
    "" "$(grep -xF -f <(echo "$own_lines") <(sed 's/^ *//' "$hs/$doc") | head -3)"
  check "chapter 05's 5 excerpts of steps/05 are 5 notes there" 5 \
    "$(grep -c '^> \*\*Code left out of this starter\*\*' "$hs/$doc")"
  # sample_round()'s note quotes the comment above it in steps/05.
  contract=$(grep -B3 '^static void sample_round(' "steps/$STEP/active_expire.c" | grep -m1 '^/\* ' | cut -c4-40)
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  check "the notes name sample_round(), active_expire_cycle() (part of it), fast_cycle_wanted(), slow_cycle_timer() and the TTL list's two functions, sample_round() with its contract" \
    "6 yes" \
    "$(grep -cE '^> - (`(sample_round|fast_cycle_wanted|slow_cycle_timer|ttl_list_add|ttl_list_remove)\(\)`|part of `active_expire_cycle\(\)`)' "$hs/$doc") $(grep -qF "> - \`sample_round()\`: $contract" "$hs/$doc" && echo yes || echo "no: not followed by '$contract'")"
  plain=$(cd "$tmp/starter" && python3 tests/tools/excerpts.py 2>&1)
  hidden=$(cd "$hs" && python3 tests/tools/excerpts.py 2>&1)
  status=$?
  check "the excerpt check passes in the hide-starter, with nothing skipped (in the starter: $plain)" \
    "0 ${plain%, * skipped: their step is not here}" "$status $hidden"
}
hide_checks

control_run
check "outside any sandbox, the escaper's server writes its 3 files and reads a solution" 4 "$(escaped_files)"
check "outside any sandbox, the escaper's server connects to the listener" "1" "$(cat "$tmp/connections" 2>/dev/null || echo 0)"
rm -f "${targets[@]}" "$tmp/outside/read" "$tmp/connections"

subs_before=$(fingerprint "$tmp/submissions")
root_before=$(fingerprint "$ROOT" build .git)
out=$tmp/report
start=$(date +%s)
make -s --no-print-directory grade-class STEP=05 SUBMISSIONS="$tmp/submissions" OUT="$out" TIMEOUT=300 >"$tmp/run1.log" 2>&1
status=$?
check "make grade-class exits 0 (took $(($(date +%s) - start)) s)" 0 "$status"
[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/run1.log" | tail -20

nst=$(cd "$tmp/starter" && python3 tests/tools/stages.py plan "$STEP" | wc -l)
first=$(cd "$tmp/starter" && python3 tests/tools/stages.py plan "$STEP" | cut -d$'\x1f' -f1 | head -1)
CSV_HEADER=student,built,stages_passed,stages_total,points,checks_passed,checks_failed,first_failing_stage,seconds,note
check "grades.csv has the header other programs read" "$CSV_HEADER" "$(head -1 "$out/grades.csv")"
# The reference's row, every column: its checks as its grader's last line counts them.
ref_checks=$(sed -n 's/^grade: stages .*, points 100\/100, checks \([0-9]*\) passed 0 failed, first failing none$/\1/p' \
  "$out/students/reference/grade.txt")
check "reference: its row in grades.csv (built 1, all stages, 100 points, the grader's $ref_checks checks, none failing)" \
  "reference,1,$nst,$nst,100,${ref_checks:-(no grade line)},0,none" \
  "$(grep '^reference,' "$out/grades.csv" | cut -d, -f1-8)"
check "reference: its seconds are a whole number" yes \
  "$(field "$out" reference seconds | grep -qxE '[0-9]+' && echo yes || echo "no: $(field "$out" reference seconds)")"
check "unchanged: builds, passes no stage, not even the earlier chapters', 0 points, fails the first stage" "1 0 $nst 0 $first" \
  "$(field "$out" unchanged built) $(field "$out" unchanged stages_passed) $(field "$out" unchanged stages_total) $(field "$out" unchanged points) $(field "$out" unchanged first_failing_stage)"
check "broken: does not build" "0 0 $nst build" \
  "$(field "$out" broken built) $(field "$out" broken stages_passed) $(field "$out" broken stages_total) $(field "$out" broken first_failing_stage)"
check "grades.md keeps the friendly names and 'yes' and '$nst/$nst' for people, and links each student's feedback" yes \
  "$(grep -qF '| student | builds | stages | points | checks passed | checks failed | first failing | seconds | note | feedback |' "$out/grades.md" &&
     grep -qE "^\| reference \| yes \| $nst/$nst \| 100 \| ${ref_checks:-x} \| 0 \| none \| [0-9]+ \|  \| \[trail\]\(students/reference/trail.md\) · \[grade\]\(students/reference/grade.txt\) · \[build\]\(students/reference/build.txt\) \|$" "$out/grades.md" && echo yes || echo no)"
check "broken: its grade.txt has the compiler's error" yes \
  "$(grep -q 'error' "$out/students/broken/grade.txt" && echo yes || echo no)"
check "escaper: graded, all stages pass (so it could read neither a solution nor a classmate's work)" "1 $nst none" \
  "$(field "$out" escaper built) $(field "$out" escaper stages_passed) $(field "$out" escaper first_failing_stage)"
check "escaper: none of its 3 files (nor the mark of a read) was written outside the sandbox" 0 "$(escaped_files)"
check "escaper: the listener outside saw no connection" 0 "$(cat "$tmp/connections" 2>/dev/null || echo 0)"
hostile_checks "$out"
check "the submissions did not change" "$subs_before" "$(fingerprint "$tmp/submissions")"
check "the project tree did not change (but build/)" "$root_before" "$(fingerprint "$ROOT" build .git)"

reports=$(cd "$out" && ls grades.csv grades.md grades.html summary.md students/*/grade.txt students/*/junit.xml \
  students/*/trail.md 2>/dev/null | wc -l)
check "reports: 4 tables and grade.txt, junit.xml and trail.md for each of 9 students" 31 "$reports"
check "junit.xml parses, the reference's has no failure" "0" \
  "$(python3 -c 'import sys,xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().get("failures"))' "$out/students/reference/junit.xml" 2>&1)"
check "junit.xml of the unchanged starter has a failure" "yes" \
  "$(python3 -c 'import sys,xml.etree.ElementTree as E; print("yes" if int(E.parse(sys.argv[1]).getroot().get("failures")) > 0 else "no")' "$out/students/unchanged/junit.xml" 2>&1)"
check "summary.md says where students stopped" yes \
  "$(grep -q "| $first | 3 | forger, junit, unchanged |" "$out/summary.md" && grep -q '| build | 1 | broken |' "$out/summary.md" && echo yes || echo no)"


# The same submissions again: the same grades (the seconds aside). Run by
# root, the first run's sandbox was uid 65534's; this one is run by an
# ordinary user (65533), whose sandbox is then its own.
cp "$out/grades.csv" "$tmp/grades1.csv"
as_user=() who="the same user"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/userhome" && printf '[safe]\n\tdirectory = *\n' >"$tmp/userhome/.gitconfig"
  rm -rf "$out" && mkdir -p "$out" && chown -R 65533:65533 "$tmp/userhome" "$out"
  as_user=(setpriv --reuid=65533 --regid=65533 --clear-groups env HOME="$tmp/userhome") who="an ordinary user (uid 65533)"
fi
"${as_user[@]}" make -s --no-print-directory grade-class STEP=05 SUBMISSIONS="$tmp/submissions" OUT="$out" TIMEOUT=300 >"$tmp/run2.log" 2>&1
check "a second run, by $who, gives the same grades" "$(cut -d, -f1-8 "$tmp/grades1.csv")" "$(cut -d, -f1-8 "$out/grades.csv")"
[ -s "$out/grades.csv" ] || tail -20 "$tmp/run2.log" | sed 's/^/#   /'
hostile_checks "$out"
check "escaper, second run: no file written, no connection" "0 0" \
  "$(escaped_files) $(cat "$tmp/connections" 2>/dev/null || echo 0)"
# A fork bomb and endless wait, alone, with low limits: at most NPROC
# processes of the sandbox's user at any time (its jail has half of them),
# none left after, a row. Only as root, when that user (65534) runs nothing
# but the sandbox; not with QUICK.
why=""
[ -n "${QUICK:-}" ] && why="QUICK is set"
[ "$(id -u)" != 0 ] && why="not root: the sandbox runs as this user"
if [ -n "$why" ]; then
  for what in "hog: process limit" "hog: nothing left" "hog: graded and failed"; do
    n=$((n + 1)); echo "ok $n - $what # skip $why"
  done
  echo "# $n checks, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi
hog_class() {
  local subs=$tmp/hogclass ws=workspace/$STEP sampler
  mkdir -p "$subs" && git clone -q "$tmp/starter" "$subs/hog"
  rm -rf "${subs:?}/hog/$ws" && cp -r "steps/$STEP" "$subs/hog/$ws"
  hog_code >"$tmp/hog.c"
  call_first_in_main "$subs/hog/$ws/main.c" "$tmp/hog.c" hog || return 1
  (while :; do ps -u 65534 --no-headers | wc -l; sleep 0.2; done) >"$tmp/samples" &
  sampler=$!
  start=$(date +%s)
  make -s --no-print-directory grade-class STEP=05 SUBMISSIONS="$subs" OUT="$tmp/hogreport" \
    TIMEOUT=30 NPROC=64 >"$tmp/hog.log" 2>&1
  hog_seconds=$(($(date +%s) - start))
  kill "$sampler"
  wait "$sampler" 2>/dev/null
  most=$(sort -n "$tmp/samples" | tail -1)
}
hog_class
check "hog: the sandbox user never had more than NPROC=64 processes, and its jail came near its half, 32" yes \
  "$([ "${most:-0}" -le 64 ] && [ "${most:-0}" -ge 32 ] && echo yes || echo "no: at most ${most:-?}")"
# The kernel reaps the sandbox's processes as its namespace ends: give it 5 s.
for _ in $(seq 25); do [ "$(ps -u 65534 --no-headers | wc -l)" = 0 ] && break; sleep 0.2; done
check "hog: no process of the sandbox user is left" 0 "$(ps -u 65534 --no-headers | wc -l)"
hog_first=$(field "$tmp/hogreport" hog first_failing_stage)
check "hog: graded and failed (first failing: $hog_first), within TIMEOUT=30 s and the build (took $hog_seconds s)" yes \
  "$([ "$hog_first" != none ] && [ "$hog_first" != "(no row)" ] && [ "$hog_seconds" -le 90 ] && echo yes || echo no)"
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
