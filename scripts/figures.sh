#!/usr/bin/env bash
# The figures of the test runs, never typed by hand (scripts/doc-section.sh renders and places them).
#
#   figures.sh collect [--sort] PRODUCER OUT LOG...
#       after a passing run (make test, make reliability-heavy): the LOGs' "RELIABILITY:" lines (sorted with
#       --sort) rendered as OUT, headed by PRODUCER; the tests never write the documents.
#   figures.sh publish BUILD
#       make figures: copies BUILD/reliability.md (a passing make test) and BUILD/reliability-heavy.md (make
#       reliability-heavy, if it ran) into the generated sections of docs/RELIABILITY.md. Runs no test.
set -euo pipefail
here=$(dirname "$0")
case ${1:-} in
collect)
  shift
  sort=cat
  if [ "${1:-}" = --sort ]; then sort=sort; shift; fi
  producer=$1 out=$2
  shift 2
  grep -h '^RELIABILITY:' "$@" | $sort | "$here/doc-section.sh" --render "$producer" > "$out.new"
  mv "$out.new" "$out"
  echo "$producer: all passed; figures written to $out (make figures puts them in docs/RELIABILITY.md)."
  ;;
publish)
  build=${2:?usage: figures.sh publish BUILD}
  [ -s "$build/reliability.md" ] || { echo "figures: no $build/reliability.md from a passing make test; run make test first (make figures never runs the tests)"; exit 1; }
  echo "scripts/doc-section.sh docs/RELIABILITY.md RELIABILITY < $build/reliability.md"
  "$here/doc-section.sh" docs/RELIABILITY.md RELIABILITY < "$build/reliability.md"
  if [ -s "$build/reliability-heavy.md" ]; then "$here/doc-section.sh" docs/RELIABILITY.md RELIABILITY-HEAVY < "$build/reliability-heavy.md"
  else echo "figures: no $build/reliability-heavy.md (make reliability-heavy); its section is left as it was"; fi
  echo "figures: docs/RELIABILITY.md updated from $build/."
  ;;
*) echo "usage: figures.sh collect [--sort] PRODUCER OUT LOG... | figures.sh publish BUILD" >&2; exit 2 ;;
esac
