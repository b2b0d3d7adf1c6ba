#!/usr/bin/env bash
# Replayed replacements (src/match/replacement_memo.h) change nothing a user
# sees: every torch fixture rewritten with the memo on (the default) and off
# (ONNX_REMAP_MEMO_ENTRIES=0), at the model's opset and at 18, gives the same
# exit code, the same JSON report (every candidate's outcome included) and the
# same output bytes. arch_repeated_blocks_op13 is one the memo replays in.
#
#   replacement_memo_test.sh BIN SOURCE_DIR WORK_DIR [SAMPLE]
# SAMPLE K takes every K-th fixture (the sanitizer run's e2e sample).
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 SAMPLE=${4:-1}
rm -rf "$WORK" && mkdir -p "$WORK/on" "$WORK/off"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"

models=0 differ=0 seen=0
for model in "$SRC"/tests/fixtures/torch/*/model.onnx; do
  # The fixture with the most replays always runs.
  [[ $model == */arch_repeated_blocks_op13/* ]] || (( seen++ % SAMPLE == 0 )) || continue
  ((models++))
  for opset in "" 18; do
    for mode in on off; do
      entries=4096
      [[ $mode == off ]] && entries=0
      # The same relative output path in both folders: the report names it.
      (cd "$WORK/$mode" && ONNX_REMAP_MEMO_ENTRIES=$entries "$BIN" rewrite "$model" -o out.onnx ${opset:+--opset $opset} \
         --json >report.json 2>stderr.txt
       echo $? >rc)
      # Times differ from run to run.
      sed -E -i 's/"seconds":[0-9.e+-]+//g' "$WORK/$mode/report.json"
    done
    if ! cmp -s "$WORK/on/rc" "$WORK/off/rc" || ! cmp -s "$WORK/on/report.json" "$WORK/off/report.json" ||
       ! cmp -s "$WORK/on/stderr.txt" "$WORK/off/stderr.txt" || ! cmp -s "$WORK/on/out.onnx" "$WORK/off/out.onnx"; then
      echo "    differs: $model ${opset:+--opset $opset}"
      ((differ++))
    fi
    rm -f "$WORK"/on/out.onnx "$WORK"/off/out.onnx
  done
done
check "$models torch fixtures, at their opset and at 18: the same exit code, report and output with replayed replacements or none ($differ differ)" \
  test "$differ" -eq 0 -a "$models" -gt $((100 / SAMPLE))
finish
