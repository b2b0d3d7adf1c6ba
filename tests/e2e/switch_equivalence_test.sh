#!/usr/bin/env bash
# A switch that only makes the tool faster changes nothing a user sees: every
# torch fixture rewritten with the environment variable VAR set to ON and to
# OFF, at the model's opset and at each of OPSETS, gives the same exit code,
# the same JSON report (every candidate's outcome), the same stderr and the
# same output bytes.
#
#   switch_equivalence_test.sh BIN SOURCE_DIR WORK_DIR SAMPLE WHAT VAR ON OFF [OPSETS [ALWAYS]]
# SAMPLE K takes every K-th fixture (the sanitizer run's e2e sample); WHAT
# names the switch in the result line; OPSETS is a space-separated list
# ("" for none); ALWAYS is a fixture that runs whatever the sample.
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 SAMPLE=$4 WHAT=$5 VAR=$6 ON=$7 OFF=$8
OPSETS=${9:-} ALWAYS=${10:-}
rm -rf "$WORK" && mkdir -p "$WORK/on" "$WORK/off"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"

models=0 runs=0 differ=0 seen=0
for model in "$SRC"/tests/fixtures/torch/*/model.onnx; do
  picked=0
  (( seen++ % SAMPLE == 0 )) && picked=1
  [[ -n $ALWAYS && $model == */$ALWAYS/* ]] && picked=1
  (( picked )) || continue
  ((models++))
  for opset in "" $OPSETS; do
    ((runs++))
    for mode in on off; do
      value=$ON
      [[ $mode == off ]] && value=$OFF
      # The same relative output path in both folders: the report names it.
      (cd "$WORK/$mode" && env "$VAR=$value" "$BIN" rewrite "$model" -o out.onnx ${opset:+--opset $opset} \
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
check "$models torch fixtures in $runs runs: the same exit code, report, stderr and output with $WHAT or without ($differ differ)" \
  test "$differ" -eq 0 -a "$models" -gt $((100 / SAMPLE))
finish
