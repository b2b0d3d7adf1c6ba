#!/usr/bin/env bash
# onnx-remap rules new: the rule it writes loads as it is, has the match for
# the node's form, the signature (schema table, else derived from the node)
# and the node's inputs; filled in, it rewrites the node.
#   rules_new_test.sh BIN SOURCE_DIR WORK_DIR
set -uo pipefail
BIN=$1 SRC=$2 WORK=$3
FIX=$SRC/tests/fixtures/torch
rm -rf "$WORK" && mkdir -p "$WORK"
passed=0 failed=0

pass() { echo "PASS $1"; ((passed++)); }
fail() { echo "FAIL $1"; shift; printf '%s\n' "$@" | sed 's/^/    | /'; ((failed++)); }

# new NAME FILE ARGS...: runs 'rules new ARGS -o FILE', expects exit 0 and a rule that loads alone.
new() {
  local name=$1 file=$2
  shift 2
  local out
  if ! out=$("$BIN" rules new "$@" -o "$file" 2>&1); then fail "$name: rules new" "$out"; return; fi
  if ! out=$("$BIN" rules list --no-builtin-rules --rules "$file" 2>&1); then fail "$name: the rule loads" "$out"; return; fi
  pass "$name: written, and it loads"
}
# has NAME FILE REGEX: FILE has a line matching REGEX (grep -E).
has() {
  if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1: no line matches /$3/" "$(cat "$2")"; fi
}
# expect NAME EXIT REGEX ARGS...: exit code, and stdout+stderr is exactly one line matching REGEX.
expect() {
  local name=$1 code=$2 regex=$3
  shift 3
  local out got
  out=$("$BIN" "$@" 2>&1); got=$?
  if [[ $got -ne $code ]]; then fail "$name: exit $got, expected $code" "$out"; return; fi
  if [[ $(wc -l <<<"$out") -ne 1 ]] || ! grep -Eq -- "$regex" <<<"$out"; then fail "$name: output is not one line matching /$regex/" "$out"; return; fi
  pass "$name"
}

# ATen fallback, found by operator name: the schema table's signature.
ARGWHERE=$FIX/argwhere_op13/model.onnx
new "fallback" "$WORK/argwhere.textproto" "$ARGWHERE" aten::argwhere
has "fallback: match on the ATen operator" "$WORK/argwhere.textproto" '^  match \{ aten: "argwhere" \}$'
has "fallback: signature from the schema table" "$WORK/argwhere.textproto" '^  signature: "aten::argwhere\(Tensor self\) -> Tensor"$'
has "fallback: the node's input and how it arrives" "$WORK/argwhere.textproto" "^#   self +<- input 0 'x': graph input float32 \[d0_0, d0_1\]$"
has "fallback: the node's form" "$WORK/argwhere.textproto" '^# Node: ATen fallback \(org.pytorch.aten::ATen<operator="argwhere", overload_name="">\)'
has "fallback: the model's opsets" "$WORK/argwhere.textproto" '^# Model: opsets default domain 13, org.pytorch.aten 1;'
has "fallback: the alternative to fill in, at the model's opset" "$WORK/argwhere.textproto" '^  #   min_opset: 13 '
has "fallback: the placeholder says TODO" "$WORK/argwhere.textproto" "^  no_standard_form: \"TODO: rule 'user-aten-argwhere'"

# A Constant argument shows its value.
new "constant argument" "$WORK/triu.textproto" "$FIX/aten_triu_op13/model.onnx" triu
has "constant argument: its value" "$WORK/triu.textproto" "^#   diagonal +<- input 1 '/Constant_output_0': Constant int64 scalar = 1$"

# Fall-through (org.pytorch.aten::addcdiv), by node name.
new "fall-through" "$WORK/addcdiv.textproto" "$FIX/addcdiv_fallthrough_op11/model.onnx" /addcdiv
has "fall-through: match on the ATen operator" "$WORK/addcdiv.textproto" '^  match \{ aten: "addcdiv" \}$'
has "fall-through: signature from the schema table" "$WORK/addcdiv.textproto" '^  signature: "aten::addcdiv\(Tensor self, Tensor tensor1, Tensor tensor2, \*, Scalar value=1\) -> Tensor"$'
has "fall-through: the node's form" "$WORK/addcdiv.textproto" '^# Node: ATen fall-through \(org.pytorch.aten::addcdiv\), 4 inputs'
has "fall-through: inputs" "$WORK/addcdiv.textproto" "^#   tensor2 +<- input 2 'b': graph input float32"

# Custom domain: the signature is derived from the node's inputs and attributes.
DCN=$FIX/custom_deform_conv2d_mask_op13/model.onnx
new "custom domain" "$WORK/dcn.textproto" "$DCN" custom::deform_conv2d
has "custom domain: match on domain and op type" "$WORK/dcn.textproto" '^  match \{ domain: "custom" op_type: "deform_conv2d" \}$'
has "custom domain: signature derived from the node" "$WORK/dcn.textproto" '^  signature: "custom::deform_conv2d\(Tensor x, Tensor weight, Tensor offset, Tensor mask, Tensor bias, int\[\] dilation, int groups, int offset_groups, int\[\] padding, int\[\] stride, int use_mask\) -> Tensor"$'
has "custom domain: attributes" "$WORK/dcn.textproto" '^#   stride +<- attribute stride: INTS = \[2, 2\]$'
has "custom domain: the schema table's operator of that name, for reference" "$WORK/dcn.textproto" "^# The schema table's deform_conv2d, for reference: torchvision::deform_conv2d\("

# An ATen operator not in the schema table: derived signature; the node's overload is matched.
new "ATen operator not in the table" "$WORK/and.textproto" "$FIX/bitwise_and_operator_int64_op13/model.onnx" __and_
has "not in the table: match with the node's overload" "$WORK/and.textproto" '^  match \{ aten: "__and_" overload: "Tensor" \}$'
has "not in the table: signature derived from the inputs" "$WORK/and.textproto" '^  signature: "aten::__and_.Tensor\(Tensor x, Tensor y\) -> Tensor"$'

# Nodes in a subgraph and in a model-local function.
new "subgraph" "$WORK/loop.textproto" "$FIX/arch_script_loop_if_fallbacks_op13/model.onnx" logcumsumexp
has "subgraph: where the node is" "$WORK/loop.textproto" "in the else_branch of If '/If' of "
new "model-local function" "$WORK/fn.textproto" "$FIX/function_asinh_op15/model.onnx" aten::asinh
has "model-local function: where the node is" "$WORK/fn.textproto" "in function onnx_remap_fixtures.blocks::AsinhBlock of "

# No model: from the schema table alone.
new "no model" "$WORK/logit.textproto" aten::logit
has "no model: signature" "$WORK/logit.textproto" '^  signature: "aten::logit\(Tensor self, float\? eps=None\) -> Tensor"$'
has "no model: the catalog's standard form as a hint" "$WORK/logit.textproto" "^# The ATen catalog's standard form: "
out=$("$BIN" rules new linalg_eigh 2>&1)
if grep -q '^  signature: "aten::linalg_eigh(Tensor self, str UPLO=\\"L\\") -> (Tensor eigenvalues, Tensor eigenvectors)"$' <<<"$out"; then
  pass "no model, to stdout: a quoted default is escaped"; else fail "no model, to stdout: a quoted default is escaped" "$out"; fi

# Errors: one line, the model named, distinct exit codes; nothing overwritten.
expect "unknown node: names the model, exit 2" 2 "^onnx-remap: error: $ARGWHERE: no node named 'nope' and no unmapped node of operator 'nope'" rules new "$ARGWHERE" nope
ADDCDIV=$FIX/addcdiv_fallthrough_op11/model.onnx
expect "a standard node is refused" 2 "^onnx-remap: error: $ADDCDIV: node '/Constant' \(Constant\) is standard ONNX: rules apply only to unmapped nodes$" rules new "$ADDCDIV" /Constant
expect "unknown operator without a model: exit 2" 2 "^onnx-remap: error: 'aten::frobnicate' is not in the schema table \(206 ATen operators\)" rules new aten::frobnicate
expect "missing model: exit 3" 3 "^onnx-remap: error: $WORK/none.onnx: no such file" rules new "$WORK/none.onnx" aten::argwhere
printf 'my rule\n' > "$WORK/mine.textproto"
expect "-o onto an existing file is refused, exit 6" 6 "^onnx-remap: error: $WORK/mine.textproto: already exists" rules new aten::logit -o "$WORK/mine.textproto"
if [[ $(cat "$WORK/mine.textproto") == "my rule" ]]; then pass "the existing file is untouched"; else fail "the existing file is untouched"; fi

out=$("$BIN" rules check --no-builtin-rules --rules "$WORK/argwhere.textproto" 2>&1)
if [[ $? -eq 0 ]] && grep -Eq "argwhere.textproto:[0-9]+:[0-9]+: warning: \[user-aten-argwhere\] no_standard_form: a TODO placeholder" <<<"$out"; then
  pass "rules check flags the placeholder"; else fail "rules check flags the placeholder" "$out"; fi

# As written, the rule leaves the node, saying TODO; filled in (the tutorial's steps), it rewrites it.
out=$("$BIN" rewrite "$ARGWHERE" --dry-run --no-builtin-rules --rules "$WORK/argwhere.textproto" 2>&1)
if [[ $? -eq 1 ]] && grep -Eq "left +1 x org.pytorch.aten::ATen argwhere: aten::argwhere has no standard ONNX equivalent: TODO: rule 'user-aten-argwhere'" <<<"$out"; then
  pass "unfilled: the node is left, with the TODO as the reason"; else fail "unfilled: the node is left, with the TODO as the reason" "$out"; fi
sed -e '/^  no_standard_form:/d' -e 's/^  # alternative {$/  alternative {/' -e 's/^  #   min_opset: .*/    min_opset: 9/' \
    -e 's/^  #   replace: .*/    replace: "nz = NonZero(self)\\n" "out = Transpose<perm = [1, 0]>(nz)"/' -e 's/^  # }$/  }/' \
    "$WORK/argwhere.textproto" > "$WORK/argwhere_filled.textproto"
out=$("$BIN" rewrite "$ARGWHERE" -o "$WORK/argwhere.onnx" --no-builtin-rules --rules "$WORK/argwhere_filled.textproto" 2>&1)
if [[ $? -eq 0 ]] && grep -q "rewritten  *1 x org.pytorch.aten::ATen argwhere -> NonZero Transpose \[user-aten-argwhere\]" <<<"$out"; then
  pass "filled in: the rule rewrites the node"; else fail "filled in: the rule rewrites the node" "$out" "$(cat "$WORK/argwhere_filled.textproto")"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
