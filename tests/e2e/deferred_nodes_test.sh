#!/usr/bin/env bash
# Nodes left as bytes (src/model/deferred_nodes.h) change nothing a user sees:
# every torch fixture rewritten with them forced on (ONNX_REMAP_DEFER_MIN_BYTES=1)
# and turned off (=0) gives the same exit code, the same text report and the
# same output bytes. (That such nodes are left as bytes at all is
# tests/unit/deferred_nodes_test.cc's to check.)
#
#   deferred_nodes_test.sh BIN SOURCE_DIR WORK_DIR [SAMPLE]
# SAMPLE K takes every K-th fixture (the sanitizer run's e2e sample).
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 SAMPLE=${4:-1}
rm -rf "$WORK" && mkdir -p "$WORK/on" "$WORK/off"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"

models=0 differ=0 seen=0
for model in "$SRC"/tests/fixtures/torch/*/model.onnx; do
  (( seen++ % SAMPLE == 0 )) || continue
  ((models++))
  for mode in on off; do
    limit=1
    [[ $mode == off ]] && limit=0
    # The same relative output path in both folders: the report names it.
    (cd "$WORK/$mode" && ONNX_REMAP_DEFER_MIN_BYTES=$limit "$BIN" rewrite "$model" -o out.onnx >report.txt 2>&1
     echo $? >rc)
    # Times differ from run to run.
    sed -E -i 's/[0-9]+(\.[0-9]+)? s\b//g' "$WORK/$mode/report.txt"
  done
  if ! cmp -s "$WORK/on/rc" "$WORK/off/rc" || ! cmp -s "$WORK/on/report.txt" "$WORK/off/report.txt" ||
     ! cmp -s "$WORK/on/out.onnx" "$WORK/off/out.onnx"; then
    echo "    differs: $model"
    ((differ++))
  fi
  rm -f "$WORK"/on/out.onnx "$WORK"/off/out.onnx
done
check "$models torch fixtures: the same exit code, report and output with nodes left as bytes or not ($differ differ)" \
  test "$differ" -eq 0 -a "$models" -gt $((100 / SAMPLE))
finish
