#!/usr/bin/env bash
# A rewrite changes only what a rule must, and keeps fields newer than ONNX 1.12.
# Fixtures: tests/fixtures/fidelity (make_fidelity_fixtures.py says what each holds).
#   rewrite_fidelity_test.sh BIN MODEL_DIFF SOURCE_DIR WORK_DIR
set -uo pipefail
BIN=$1 MODEL_DIFF=$2 SRC=$3 WORK=$4
FIX=$SRC/tests/fixtures/fidelity
rm -rf "$WORK" && mkdir -p "$WORK"
cd "$WORK" || exit 1
source "$SRC/tests/cli/expect_lib.sh"

# Lines of `model_diff IN OUT` (and its exit code) must be exactly the expected ones.
expect_diff() {
  local name=$1 in=$2 out=$3 expected=$4 got
  got=$("$MODEL_DIFF" "$in" "$out"; echo "exit $?")
  if [[ $got == "$expected" ]]; then
    echo "PASS $name"; ((passed++))
  else
    echo "FAIL $name:"; diff <(echo "$expected") <(echo "$got") | sed 's/^/    | /'; ((failed++))
  fi
}
cp "$FIX/untouched_nodes.onnx" fixtures_untouched.onnx
cp "$FIX/newer_fields_op21.onnx" fixtures_newer.onnx

# Untouched nodes: three ATen asinh (main graph, an If branch, a local function) are rewritten;
# the 12 other nodes, their order, names, doc strings, attributes, the If node holding the rewritten
# branch, initializers, value_info, metadata and the model's other fields come out byte-identical.
expect "untouched: three ATen nodes rewritten" 0 "^fixtures_untouched.onnx: 3 rewritten, 0 left$" -- \
  rewrite fixtures_untouched.onnx -o untouched.out.onnx
expect_diff "untouched: only the rewritten nodes changed" fixtures_untouched.onnx untouched.out.onnx \
"function local::ReluAsinh opset_import: :17 org.pytorch.aten:1 -> :17
opset_import: :17 org.pytorch.aten:1 local:1 -> :17 local:1
nodes: 12 kept byte-identical, 3 removed, 3 added
removed: graph/aten_main graph/if.then_branch/then/aten function local::ReluAsinh/fn/aten
removed initializers: -
unknown-field bytes: 0 in, 0 out
exit 0"
# The comparison can fail: --infer-shapes writes inferred value_info, which it must notice.
"$BIN" rewrite fixtures_untouched.onnx -o untouched.shapes.onnx --infer-shapes -q
check "untouched: model_diff notices value_info that --infer-shapes adds" \
  bash -c "'$MODEL_DIFF' fixtures_untouched.onnx untouched.shapes.onnx | grep -qx 'DIFFERS: graph: graph value_info differ'"

# Newer fields: IR 10 / opset 21 (beyond ONNX 1.12, so no inference or checker) with fields 1.12
# does not know. Everything but the ATen node (and its own 24 bytes of node metadata) is kept.
expect "newer fields: the ATen node is rewritten" 0 "^fixtures_newer.onnx: 1 rewritten, 0 left$" -- \
  rewrite fixtures_newer.onnx -o newer.out.onnx
expect_diff "newer fields: every unknown field outside the rewritten node survives" fixtures_newer.onnx newer.out.onnx \
"function local::Twice opset_import: :21 -> :21
opset_import: :21 org.pytorch.aten:1 local:1 -> :21 local:1
nodes: 3 kept byte-identical, 1 removed, 1 added
removed: graph/aten
removed initializers: -
unknown-field bytes: 231 in, 207 out
exit 0"
for key in model-value two-gpus graph-value node-value call-value fn-value tensor-value input-value; do
  check "newer fields: '$key' still in the output" grep -q -a -F "$key" newer.out.onnx
done
check "newer fields: the rewritten node's metadata went with it" bash -c "! grep -q -a -F aten-value newer.out.onnx"

# Determinism and idempotence: the same bytes again, and a second rewrite changes nothing.
"$BIN" rewrite fixtures_newer.onnx -o newer.again.onnx -q
check "newer fields: the same output on a second run" cmp -s newer.out.onnx newer.again.onnx
"$BIN" rewrite newer.out.onnx -o newer.twice.onnx -q
check "newer fields: rewriting the output changes nothing" cmp -s newer.out.onnx newer.twice.onnx
finish
