# diffchurn.awk -- the hunk check of diffscope.sh --hunks, for one file.
#
# Reads what difflines.awk prints for `diff -u steps/PREV/FILE steps/STEP/FILE`,
# prints every hunk that is comment churn, with its lines and what is expected
# instead, and exits 1 if it printed one. The rule is in diffscope.sh's header.
#
#   ... | awk -v prev=PREV -v step=STEP -v file=FILE -v near=N \
#             -v allow=ALLOW_FILE -v used=USED_FILE -f diffchurn.awk
#
# Entries of ALLOW_FILE that allow a hunk here get their line number appended
# to USED_FILE, so that diffscope.sh can report the ones that allow nothing.

BEGIN {
    FS = "\t"
    n_allow = 0
    load_allow()
}

# An entry is "STEP FILE TEXT": it applies when STEP is this step ("06" or
# "06-timewheel") or "*", and FILE is this file.
function load_allow(    line, lineno, s, f, rest) {
    lineno = 0
    while ((getline line < allow) > 0) {
        lineno++
        if (line ~ /^[ \t]*(#|$)/) continue
        if (!match(line, /^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+/)) continue
        rest = substr(line, RLENGTH + 1)
        split(line, w, /[ \t]+/)
        s = (w[1] == "") ? w[2] : w[1]; f = (w[1] == "") ? w[3] : w[2]
        if ((s == "*" || s == step || s "-" == substr(step, 1, length(s) + 1)) && f == file) {
            n_allow++; allow_line[n_allow] = lineno; allow_text[n_allow] = rest
        }
    }
    close(allow)
}

$1 == "H" {
    h = $2; hunks = h
    head[h] = "@@ -" $3 "," $4 " +" $5 "," $6 " @@"
    next
}

$1 == "L" {
    i = ++n[h]
    sign[h, i] = $3; kind[h, i] = $4; num[h, i] = $5; at[h, i] = $6
    text[h, i] = $0
    for (f = 1; f <= 6; f++) text[h, i] = substr(text[h, i], index(text[h, i], "\t") + 1)
    if ($4 == "code") { has_code[h] = 1; code_at[++n_code] = $6 }
    if ($4 == "comment" || $4 == "header") has_comment[h] = 1
    if ($4 == "header") has_header[h] = 1
}

# Lines between the hunk's changes and the nearest changed code line of the
# file, in the new file's numbering; -1 if the file changes no code at all.
function distance_to_code(h,    lo, hi, i, d, best) {
    lo = at[h, 1]; hi = at[h, n[h]]; best = -1
    for (i = 1; i <= n_code; i++) {
        d = code_at[i] < lo ? lo - code_at[i] : code_at[i] > hi ? code_at[i] - hi : 0
        if (best < 0 || d < best) best = d
    }
    return best
}

function allowed(h,    k, i) {
    for (k = 1; k <= n_allow; k++)
        for (i = 1; i <= n[h]; i++)
            if (kind[h, i] != "code" && index(text[h, i], allow_text[k])) {
                print allow_line[k] >> used
                return 1
            }
    return 0
}

# The hunk's lines: only the header's when the hunk is churn for its header.
function show(h, only_header,    i) {
    for (i = 1; i <= n[h]; i++)
        if (!only_header || kind[h, i] == "header")
            printf "    %s%-4d| %s\n", sign[h, i], num[h, i], text[h, i]
}

END {
    bad = 0
    chapter = "docs/" step ".md"
    for (h = 1; h <= hunks; h++) {
        if (has_header[h]) {
            if (allowed(h)) continue
            printf "%s -> %s: steps/%s/%s, hunk %s: the file's header comment changes%s\n",
                prev, step, step, file, head[h], has_code[h] ? " (the hunk's code changes are fine)" : ""
            show(h, 1)
            printf "  expected: the header as it was in steps/%s. A file's header says what the file is now;\n", prev
            printf "  history belongs in the chapter (%s). If the file really is something else now,\n", chapter
        } else if (has_comment[h] && !has_code[h]) {
            d = distance_to_code(h)
            if (d >= 0 && d <= near) continue
            if (allowed(h)) continue
            printf "%s -> %s: steps/%s/%s, hunk %s: only comments change, %s\n",
                prev, step, step, file, head[h],
                d < 0 ? "and the file changes no code" : "and the nearest code change is " d " lines away"
            show(h, 0)
            printf "  expected: a comment changes with the code it explains, within %d lines of it;\n", near
            printf "  narration of what the chapter did belongs in the chapter (%s). If this is needed,\n", chapter
        } else continue
        printf "  allow it: a line '%s %s <text from one of these lines>' in tests/tools/diffscope.allow,\n", substr(step, 1, 2), file
        printf "  with a comment above it saying why.\n"
        bad++
    }
    exit (bad > 0)
}
