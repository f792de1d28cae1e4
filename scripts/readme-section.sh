#!/usr/bin/env bash
# Replaces the README section between <!-- NAME:BEGIN --> and <!-- NAME:END --> with standard input,
# so that figures in the README are produced by the runs that measured them, never typed by hand.
# Usage: some-run | scripts/readme-section.sh NAME "what produced it"
set -euo pipefail
name=$1 producer=$2
readme=$(dirname "$0")/../README.md
body=$(mktemp); trap 'rm -f "$body"' EXIT
{
  echo "Produced by \`$producer\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
       "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), commit $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
  sed 's/^RELIABILITY: /- /'
} > "$body"
grep -q "<!-- $name:BEGIN -->" "$readme" || { echo "README.md has no $name section markers" >&2; exit 1; }
awk -v name="$name" -v body="$body" '
  $0 == "<!-- " name ":BEGIN -->" { print; while ((getline line < body) > 0) print line; skip = 1; next }
  $0 == "<!-- " name ":END -->" { skip = 0 }
  !skip { print }
' "$readme" > "$readme.new" && mv "$readme.new" "$readme"
