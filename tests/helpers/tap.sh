# tap.sh -- TAP output for the check scripts that are not bats suites
# (tests/tools/*_check.sh): tests/run.sh counts their "ok N" and "not ok N"
# lines. Sourced; counts in n (checks) and failed.
#   ok DESCRIPTION              a check that held
#   not_ok DESCRIPTION          one that did not; say why with diag
#   skip DESCRIPTION REASON     one that could not run here
#   check DESCRIPTION EXPECTED RECEIVED   ok when the two are equal, else
#                               not_ok and both, as "#" lines
#   diag [N]                    stdin's last N lines (25) as "#" lines
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # skip $2"; }
diag() { tail -"${1:-25}" | sed 's/^/#   /'; }
check() {
  if [ "$2" = "$3" ]; then ok "$1"; else
    not_ok "$1"
    printf '#   expected: %s\n#   received: %s\n' "$2" "$3"
  fi
}
