#!/usr/bin/env bash
# Where the output keeps its weights (issue 11, "past 2 GB"): an embedded model
# rewritten with --save-external-data, and that output with --save-embedded,
# run in onnxruntime like the original (when NODE is given and
# tests/ort/node_modules is there), the round trip byte-identical to a plain
# rewrite; --save-embedded refused (exit 6, nothing read or written) for a
# model whose 2.1 GB of weights (a sparse external file) cannot be embedded;
# data file names that would overwrite the model's own data refused.
#
#   weight_storage_test.sh BIN SOURCE_DIR WORK_DIR MAKE_WEIGHTED_MODEL [NODE]
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 MAKE=$4 NODE=${5:-}
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"
[[ -n $NODE && -d $SRC/tests/ort/node_modules/onnxruntime-node ]] || { NODE=""; echo "SKIP onnxruntime checks: no node or tests/ort/node_modules"; }

names() { (cd "$1" && ls -A | LC_ALL=C sort | tr '\n' ' '); }
runs_in_ort() { [[ -z $NODE ]] || "$NODE" "$SRC/tests/ort/compare.mjs" "$1" "$2" --rtol 1e-4 --atol 1e-5 >"$WORK/ort.log" 2>&1; }
rewrite() { "$BIN" rewrite -q "$@" >"$WORK/last.log" 2>&1; }

CASE=$SRC/tests/fixtures/torch/arch_deform_conv_backbone_op13
mkdir -p "$WORK/plain" "$WORK/ext" "$WORK/back"
rewrite "$CASE/model.onnx" -o "$WORK/plain/fixed.onnx"
check "plain rewrite: exit 0" test $? -eq 0

rewrite "$CASE/model.onnx" -o "$WORK/ext/fixed.onnx" --save-external-data
check "--save-external-data: exit 0" test $? -eq 0
check "--save-external-data: the model and fixed.onnx.data, nothing else" test "$(names "$WORK/ext")" = "fixed.onnx fixed.onnx.data "
check "--save-external-data: the model is smaller than with its weights" \
  test "$(stat -c %s "$WORK/ext/fixed.onnx")" -lt "$(stat -c %s "$WORK/plain/fixed.onnx")"
check "--save-external-data: the data file is the model's weights, page-aligned" \
  test "$(stat -c %s "$WORK/ext/fixed.onnx.data")" -gt 4096
check "--save-external-data: it validates (check exits 0)" "$BIN" check -q "$WORK/ext/fixed.onnx"
check "--save-external-data: it runs in onnxruntime like the original" runs_in_ort "$WORK/ext/fixed.onnx" "$CASE"

rewrite "$WORK/ext/fixed.onnx" -o "$WORK/back/fixed.onnx" --save-embedded
check "--save-embedded: exit 0, no data file" test $? -eq 0 -a "$(names "$WORK/back")" = "fixed.onnx "
check "--save-embedded after --save-external-data: byte-identical to the plain rewrite" cmp -s "$WORK/back/fixed.onnx" "$WORK/plain/fixed.onnx"
check "--save-embedded: it runs in onnxruntime like the original" runs_in_ort "$WORK/back/fixed.onnx" "$CASE"

rewrite "$CASE/model.onnx" -o "$WORK/ext/named.onnx" --save-external-data --external-data-file w/named.bin --external-data-threshold 100000000
check "a threshold no initializer reaches: no data file" test $? -eq 0 -a ! -e "$WORK/ext/w/named.bin"
rewrite "$CASE/model.onnx" -o "$WORK/ext/named.onnx" --save-external-data --external-data-file w/named.bin
check "--external-data-file in a subfolder: exit 0, there" test $? -eq 0 -a -f "$WORK/ext/w/named.bin"
check "--external-data-file: it runs in onnxruntime" runs_in_ort "$WORK/ext/named.onnx" "$CASE"

# The model's own data file is never the one written.
DATA=$(sha256sum <"$WORK/ext/fixed.onnx.data")
expect "the data file name of the input's data: exit 6" 6 "fixed.onnx.data: is the external data file 'fixed.onnx.data' the model refers to; choose another --external-data-file" \
  -- rewrite "$WORK/ext/fixed.onnx" -o "$WORK/ext/again.onnx" --save-external-data --external-data-file fixed.onnx.data
check "the data file name of the input's data: the data is unchanged, no model" \
  test "$(sha256sum <"$WORK/ext/fixed.onnx.data")" = "$DATA" -a ! -e "$WORK/ext/again.onnx"
expect "a data file name out of the folder: exit 2" 2 "--external-data-file '../x.data': expected a relative path without '..'" \
  -- rewrite "$CASE/model.onnx" -o "$WORK/ext/x.onnx" --save-external-data --external-data-file ../x.data
expect "--save-embedded with --save-external-data: exit 2" 2 "excludes" \
  -- rewrite "$CASE/model.onnx" -o "$WORK/ext/x.onnx" --save-external-data --save-embedded

# 2.1 GB of weights cannot be embedded: refused from the lengths, before reading.
mkdir -p "$WORK/huge" "$WORK/huge-out"
"$MAKE" "$WORK/huge/model.onnx" 2100h 1 huge.bin || { echo "FAIL generator"; exit 1; }
start=$(date +%s%N)
expect "--save-embedded past 2 GiB: exit 6, says why" 6 \
  "^onnx-remap: error: .*huge-out/fixed.onnx: with its external data embedded the model would be about [0-9]+ bytes, past protobuf's limit of 2147483647 for one file; nothing written" \
  -- rewrite "$WORK/huge/model.onnx" -o "$WORK/huge-out/fixed.onnx" --save-embedded
ms=$((($(date +%s%N) - start) / 1000000))
echo "    refused in ${ms} ms"
check "--save-embedded past 2 GiB: nothing written" test -z "$(names "$WORK/huge-out")"
check "--save-embedded past 2 GiB: refused without reading 2.1 GB (under 10 s)" test $ms -lt 10000

rm -rf "$WORK"
finish
