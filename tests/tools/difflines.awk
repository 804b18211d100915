# difflines.awk -- the changed lines of one `diff -u`, each with its kind:
# code, comment, header or blank. Used by diffsize.sh and diffscope.sh --hunks.
#
#   diff -u OLD NEW | awk -v old=OLD -v new=NEW -f difflines.awk
#
# The rule, for .c and .h files (in any other file every line is code):
#   code     the line has a character outside a comment, other than blanks
#            (`x = 1; /* why */` is code; so are `#include` lines);
#   comment  otherwise, when the line is inside a /* */ comment or holds
#            one or a // comment (` * text`, ` */`, `// text`, and an empty
#            line inside a /* */ comment);
#   header   a comment line before the file's first code line: the file's
#            header comment;
#   blank    an empty or all-blank line outside any comment.
# Strings and character literals are skipped, so "/*" in a string is code.
# Each file is read whole and classified top to bottom, so a line in the
# middle of a long comment is known to be a comment even when the diff shows
# it alone.
#
# Output, one record per line, fields separated by tabs:
#   H  hunk  old_start  old_count  new_start  new_count
#   L  hunk  sign  kind  line  at  text
# sign is - or +; line is the line's number in OLD (for -) or in NEW (for +);
# at is where the line sits in NEW (for a removed line: the NEW line it was
# removed before), so lines of both signs can be compared by distance.

function kind_of(s,    i, n, c, d, q, code, com) {
    # Fast paths: most lines have no comment or string at all.
    if (!in_comment && s !~ /[\/"']/) return (s ~ /[^ \t\r\f\v]/) ? "code" : "blank"
    if (in_comment && index(s, "*/") == 0) return "comment"
    code = 0; com = in_comment
    n = length(s); i = 1
    while (i <= n) {
        c = substr(s, i, 1); d = substr(s, i + 1, 1)
        if (in_comment) {
            if (c == "*" && d == "/") { in_comment = 0; i += 2 } else i++
        } else if (c == "/" && d == "*") {
            in_comment = 1; com = 1; i += 2
        } else if (c == "/" && d == "/") {
            com = 1; break
        } else if (c == "\"" || c == "'") {
            code = 1; q = c; i++
            while (i <= n) {
                c = substr(s, i, 1)
                if (c == "\\") i += 2
                else if (c == q) { i++; break }
                else i++
            }
        } else {
            if (c !~ /[ \t\r\f\v]/) code = 1
            i++
        }
    }
    return code ? "code" : com ? "comment" : "blank"
}

function classify(path, kinds,    line, n, k, is_c, seen_code) {
    is_c = (path ~ /\.[ch]$/)
    in_comment = 0; seen_code = 0; n = 0
    while ((getline line < path) > 0) {
        k = is_c ? kind_of(line) : "code"
        if (k == "code") seen_code = 1
        else if (k == "comment" && !seen_code) k = "header"
        kinds[++n] = k
    }
    close(path)
}

BEGIN {
    OFS = "\t"
    classify(old, old_kind)
    classify(new, new_kind)
    hunk = 0
}

/^@@ / {
    # @@ -a,b +c,d @@ (a count of 1 may be left out)
    split($2, o, ","); split($3, w, ",")
    o_line = -o[1]; n_line = w[1] + 0
    hunk++
    print "H", hunk, o_line, (2 in o) ? o[2] : 1, n_line, (2 in w) ? w[2] : 1
    # Numbers of the next line to read in each file.
    if (((2 in o) ? o[2] : 1) == 0) o_line++
    if (((2 in w) ? w[2] : 1) == 0) n_line++
    next
}

hunk == 0 { next }      # the --- and +++ lines

/^ / { o_line++; n_line++; next }
/^-/ { print "L", hunk, "-", old_kind[o_line], o_line, n_line, substr($0, 2); o_line++; next }
/^\+/ { print "L", hunk, "+", new_kind[n_line], n_line, n_line, substr($0, 2); n_line++; next }
