#!/bin/bash
# check-readme-figures: every ratio the README quotes as "N.NN× … (figure K)" is figure K's pair-by-pair ratio in
# docs/PERFORMANCE.md, which `make bench` writes; a figure measured again must be quoted again (issue 40, item 12),
# and a figure the bench marked "disturbed: measure again" is not quoted at all (item 13).
set -u
root=${1:-.}
readme="$root/README.md"
perf="$root/docs/PERFORMANCE.md"
failed=0 checked=0
# Each quote: the ratio, then the nearest "(figure K" after it in the same sentence.
while IFS=' ' read -r ratio figure; do
  row=$(grep -E "^\| $figure \|" "$perf" | head -n 1)
  [ -n "$row" ] || { echo "FAILED: the README quotes figure $figure, which docs/PERFORMANCE.md does not have"; failed=1; continue; }
  measured=$(awk -F'|' '{ print $6 }' <<<"$row" | grep -oE '^ *[+]?[0-9.]+' | tr -d ' ')
  checked=$((checked + 1))
  if awk -F'|' '{ print $8 }' <<<"$row" | grep -q 'disturbed'; then
    echo "FAILED: the README quotes figure $figure, which docs/PERFORMANCE.md marks as measured on a disturbed machine (not a result)"
    failed=1
    continue
  fi
  if [ "$measured" != "$ratio" ]; then
    echo "FAILED: the README says ${ratio}× for figure $figure; docs/PERFORMANCE.md measured ${measured}×"
    failed=1
  fi
done < <(tr '\n' ' ' <"$readme" | grep -oE '[0-9]+\.[0-9]+× [^.(]*\(figure [0-9a-z]+' |
  sed -E 's/^([0-9.]+)× .*\(figure ([0-9a-z]+)$/\1 \2/')
[ "$checked" -gt 0 ] || { echo "FAILED: the README quotes no figure of docs/PERFORMANCE.md"; exit 1; }
[ "$failed" -eq 0 ] && echo "check-readme-figures: the README's $checked headline figures are docs/PERFORMANCE.md's."
exit "$failed"
