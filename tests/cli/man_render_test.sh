#!/usr/bin/env bash
# man_render_test.sh MAN_PAGE
# man(1) renders the generated page without warnings. Skipped (77) without man.
set -euo pipefail
command -v man >/dev/null || { echo "SKIP: man not installed"; exit 77; }
out=$(MANWIDTH=100 MAN_KEEP_FORMATTING=0 man -l "$1" 2>&1 >/dev/null) || { echo "$out"; echo "FAIL: man -l"; exit 1; }
[[ -z $out ]] || { echo "$out"; echo "FAIL: man -l warned"; exit 1; }
text=$(MANWIDTH=100 man -l "$1" 2>/dev/null | col -b 2>/dev/null || MANWIDTH=100 man -l "$1")
for heading in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS "EXIT STATUS" FILES; do
  grep -qx "$heading" <<<"$text" || { echo "FAIL: no $heading section"; exit 1; }
done
grep -q "onnx-remap rewrite \[OPTIONS\] inputs" <<<"$text" || { echo "FAIL: no rewrite synopsis"; exit 1; }
echo "PASS: man -l renders the page"
