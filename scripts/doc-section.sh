#!/usr/bin/env bash
# Generated sections of the documents: figures are written by the runs that measured them, never typed by hand.
#
#   some-run | scripts/doc-section.sh --render "what produced it" > build/FIGURES.md
#       turns the run's "RELIABILITY: ..." lines into a Markdown list, headed by what produced them, when, on
#       which machine and at which commit (the tests call this: their figures stay under build/).
#   scripts/doc-section.sh FILE NAME < build/FIGURES.md
#       replaces the part of FILE between <!-- NAME:BEGIN --> and <!-- NAME:END --> with standard input
#       (`make figures` calls this); FILE without those markers is an error and is left alone.
set -euo pipefail
here=$(dirname "$0")
if [ "${1:-}" = --render ]; then
  [ $# -eq 2 ] || { echo "usage: scripts/doc-section.sh --render PRODUCER" >&2; exit 2; }
  commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$here/.." status --porcelain -- Sources Tests Package.swift 2>/dev/null | grep -q . && commit="$commit with uncommitted changes"
  echo "Produced by \`$2\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
       "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), commit $commit."
  echo
  sed 's/^RELIABILITY: /- /'
  exit 0
fi
[ $# -eq 2 ] || { echo "usage: scripts/doc-section.sh FILE NAME < BODY  (or --render PRODUCER)" >&2; exit 2; }
file=$1 name=$2
[ -f "$file" ] || { echo "$file does not exist" >&2; exit 1; }
grep -qx "<!-- $name:BEGIN -->" "$file" && grep -qx "<!-- $name:END -->" "$file" \
  || { echo "$file has no <!-- $name:BEGIN --> / <!-- $name:END --> markers; left alone" >&2; exit 1; }
body=$(mktemp); trap 'rm -f "$body" "$file.new"' EXIT
cat > "$body"
awk -v name="$name" -v body="$body" '
  $0 == "<!-- " name ":BEGIN -->" { print; while ((getline line < body) > 0) print line; skip = 1; next }
  $0 == "<!-- " name ":END -->" { skip = 0 }
  !skip { print }
' "$file" > "$file.new" && mv "$file.new" "$file"
