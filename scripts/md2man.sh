#!/bin/sh
# Writes a man page (roff, man macros) from the Markdown on standard input, for the Debian package's man pages
# (debian/rules): md2man.sh NAME SECTION "one-line description" < doc.md > NAME.SECTION
#
# Only the Markdown our docs use: a "# title" line (dropped: NAME says it), "##"/"###" headings, paragraphs, fenced
# code blocks, "-" and "1." lists, tables (one tagged paragraph per row), `code`, **bold** and [text](link). The
# text before the first "##" heading becomes DESCRIPTION. Nothing else is needed, and pandoc is not a build
# dependency.
set -eu

[ $# -eq 3 ] || { echo "usage: md2man.sh NAME SECTION DESCRIPTION < doc.md" >&2; exit 2; }
name=$1 section=$2 description=$3
date=${SOURCE_DATE_EPOCH:+$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)}

printf '.TH %s %s "%s" "pam_localauth" "pam_localauth"\n' "$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')" \
  "$section" "${date:-$(date -u +%Y-%m-%d)}"
printf '.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n' "$(printf '%s' "$name" | sed 's/-/\\-/g')" "$description"

awk '
  # roff escapes first: a backslash is \e, and a line may not start with a dot or a quote.
  function escape(s) { gsub(/\\/, "\\e", s); sub(/^[.'\'']/, "\\\\\\&&", s); return s }
  # Inline Markdown: `code` and **bold** in bold, [text](link) as "text (link)".
  function inline(s,   out, start) {
    s = escape(s)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {
      start = substr(s, RSTART, RLENGTH); sub(/^\[/, "", start); sub(/\)$/, ")", start); sub(/\]\(/, " (", start)
      s = substr(s, 1, RSTART - 1) start substr(s, RSTART + RLENGTH)
    }
    while (match(s, /`[^`]*`/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /\*\*[^*]*\*\*/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
    return s
  }
  function cells(line, parts,   n, i) {
    sub(/^[ \t]*\|/, "", line); sub(/\|[ \t]*$/, "", line)
    n = split(line, parts, /[ \t]*\|[ \t]*/)
    for (i = 1; i <= n; i++) { sub(/^[ \t]+/, "", parts[i]); sub(/[ \t]+$/, "", parts[i]) }
    return n
  }
  BEGIN { code = 0; para = 0; header = 0 }
  NR == 1 && /^# / { next }
  /^```/ { if (code) { print ".fi\n.RE"; code = 0 } else { print ".PP\n.RS 2\n.nf"; code = 1 }; para = 0; next }
  code { print escape($0); next }
  /^### / { sub(/^### /, ""); print ".SS " inline($0); para = 0; next }
  /^## / { sub(/^## /, ""); print ".SH " toupper(inline($0)); para = 0; next }
  /^[ \t]*$/ { para = 0; header = 0; next }
  /^\|[ \t:-]*-[ \t:|-]*$/ { next }
  /^[ \t]*\|/ {
    n = cells($0, c)
    if (!header) { header = 1; if (para == 0) print ".PP"; para = 1 }
    print ".TP"; print inline(c[1]); rest = ""
    for (i = 2; i <= n; i++) rest = rest (i > 2 ? "; " : "") c[i]
    print inline(rest)
    next
  }
  /^[ \t]*- / { sub(/^[ \t]*- /, ""); print ".IP \\(bu 2"; print inline($0); para = 1; next }
  /^[ \t]*[0-9]+\. / { match($0, /[0-9]+\./); n = substr($0, RSTART, RLENGTH); sub(/^[ \t]*[0-9]+\. /, "")
    print ".IP " n " 4"; print inline($0); para = 1; next }
  { if (para == 0) { print ".PP"; para = 1 }; sub(/^[ \t]+/, ""); print inline($0) }
  END { if (code) print ".fi\n.RE" }
'
