#!/usr/bin/env bash
# CLI behaviour: exit codes, one-line messages naming the file, nothing
# written on failure, inputs untouched.
#   cli_test.sh BIN SOURCE_DIR WORK_DIR
set -uo pipefail
BIN=$1 SRC=$2 WORK=$3
FIX=$SRC/tests/fixtures
rm -rf "$WORK" && mkdir -p "$WORK"
source "$SRC/tests/cli/expect_lib.sh"

ASINH=$FIX/corpus/asinh_op13/model.onnx
sum_before=$(sha256sum "$ASINH")

expect "missing input file" 3 "^onnx-remap: error: $WORK/nope.onnx: no such file$" -- rewrite "$WORK/nope.onnx" -o "$WORK/o.onnx"
check "nothing written for a missing input" test ! -e "$WORK/o.onnx"

printf 'hello, this is not a model\n' > "$WORK/notes.onnx"
expect "not an ONNX file" 3 "^onnx-remap: error: $WORK/notes.onnx: not an ONNX model" -- rewrite "$WORK/notes.onnx" -o "$WORK/o.onnx"
check "nothing written for a non-ONNX input" test ! -e "$WORK/o.onnx"

cat > "$WORK/bad.textproto" <<'R'
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Asinh(self" }
}
R
expect "rule with bad ONNX text" 4 "^$WORK/bad.textproto:5:56: error: replace: ONNX text: Expected character \) not found\.$" -- rewrite "$ASINH" -o "$WORK/o.onnx" --rules "$WORK/bad.textproto"
printf 'rule {\n  id: "x"\n  frobnicate: 1\n}\n' > "$WORK/syntax.textproto"
expect "unknown rule syntax" 4 "^$WORK/syntax.textproto:3:13: error: .*no field named \"frobnicate\"" -- rewrite "$ASINH" -o "$WORK/o.onnx" --rules "$WORK/syntax.textproto"
expect "missing rules path" 4 "^$WORK/none.textproto: error: no such rule file or folder$" -- scan "$ASINH" --rules "$WORK/none.textproto"
check "nothing written for a rule error" test ! -e "$WORK/o.onnx"

UNCOVERED=$FIX/corpus/svd_op13/model.onnx
expect "node no rule covers" 1 "left +1 x org.pytorch.aten::ATen linalg_svd: no rule for aten::linalg_svd \(nodes: /ATen\)" -- rewrite "$UNCOVERED" -o "$WORK/left.onnx" --no-builtin-rules
check "output still written when nodes are left" test -s "$WORK/left.onnx"
expect "scan exit 1 when uncovered" 1 "1 x org.pytorch.aten::ATen linalg_svd" -- scan "$UNCOVERED" --no-builtin-rules
expect "scan JSON" 1 '"remaining":\[\{"graph":"torch_jit","node":"/ATen","op":"org.pytorch.aten::ATen","form":"aten-fallback","operator":"linalg_svd","severity":"error","rule":""' -- scan "$UNCOVERED" --json --no-builtin-rules
expect "no standard form: the rule's reason" 1 "left +1 x org.pytorch.aten::ATen linalg_svd: aten::linalg_svd has no standard ONNX equivalent: " -- rewrite "$UNCOVERED" --dry-run
expect "no standard form in scan JSON" 1 '"refusal":"no-standard-form","refused_by":"aten-linalg-svd"' -- scan "$UNCOVERED" --json

expect "lossy symbolic refused, names missing inputs" 1 "too few arguments: the node has 2 inputs \('x', 'offset'\) where the signature needs 11 \(input, weight, offset, mask, bias" -- rewrite "$FIX/torch/lossy_deform_conv2d_op13/model.onnx" -o "$WORK/lossy.onnx"
# A user rule for a plugin op, written for opset 11, on a model exported at 9.
expect "needs a higher opset" 1 "needs opset 11 \(target is 9; --opset 11 allows raising it\)" -- rewrite "$FIX/torch/arch_deform_conv_block_op9/model.onnx" --dry-run --no-builtin-rules --rules "$SRC/examples/rules/deform_conv_mmcv.textproto"
expect "opset beyond the known ones refused" 5 "^onnx-remap: error: .*opset 30 is outside the opsets onnx-remap converts between" -- rewrite "$ASINH" -o "$WORK/o.onnx" --opset 30
check "nothing written for a refused opset" test ! -e "$WORK/o.onnx"
# Lowering types the outputs of If nodes, whose bodies hold nodes of no
# schema (ATen, a model-local function): ONNX's subgraph inference once read
# a functions map already gone, and crashed.
expect "If body with ATen nodes, lowered to 11" 0 "2 rewritten, 0 left, opset 13 -> 11" -- rewrite "$FIX/corpus/subgraph_if_asinh_tril_op13/model.onnx" -o "$WORK/if11.onnx" --opset 11
expect "If body calling a local function, lowered to 11" 0 "3 rewritten, 0 left, opset 17 -> 11" -- rewrite "$FIX/fidelity/untouched_nodes.onnx" -o "$WORK/fn11.onnx" --opset 11

expect "JSON error object" 3 '"exit_code":3,"errors":\[\{"code":"input-not-found","stage":"","message":"[^"]*nope.onnx: no such file"\}\]\}$' -- rewrite "$WORK/nope.onnx" -o "$WORK/o.onnx" --json
cp "$ASINH" "$WORK/inplace.onnx"
expect "rewrite in place" 0 "1 rewritten, 0 left" -- rewrite "$WORK/inplace.onnx" -o "$WORK/inplace.onnx"
expect "in-place result is clean" 0 "0 unmapped nodes" -- scan "$WORK/inplace.onnx"
expect "usage: no output" 2 "^onnx-remap: error: .*--output" -- rewrite "$ASINH"
expect "usage: unknown option" 2 "^onnx-remap: error: " -- rewrite "$ASINH" -o "$WORK/o.onnx" --frobnicate
expect "unwritable output" 6 "^onnx-remap: error: $WORK/no/such/dir/o.onnx: folder .* does not exist" -- rewrite "$ASINH" -o "$WORK/no/such/dir/o.onnx"
expect "rewrite ok" 0 "1 rewritten, 0 left" -- rewrite "$ASINH" -o "$WORK/ok.onnx"
expect "dry run writes nothing" 0 "dry run: nothing written" -- rewrite "$ASINH" -o "$WORK/dry.onnx" --dry-run
check "dry run left no file" test ! -e "$WORK/dry.onnx"
check "input untouched" test "$(sha256sum "$ASINH")" = "$sum_before"
check "no temp files left" test -z "$(find "$WORK" -name '.*.tmp-*')"

# Shape inference validates, but its value_info stays out of the output unless asked for:
# a model with nothing to rewrite comes out byte-identical, and a rewrite is idempotent.
CLIP=$FIX/torch/slice_clip_boxes_op9/model.onnx
expect "rewrite of a model with intermediate values" 0 "2 rewritten, 0 left" -- rewrite "$CLIP" -o "$WORK/clip.onnx"
expect "clean model rewritten again" 0 "0 rewritten, 0 left" -- rewrite "$WORK/clip.onnx" -o "$WORK/clip2.onnx"
check "nothing to rewrite: output byte-identical to the input" cmp -s "$WORK/clip.onnx" "$WORK/clip2.onnx"
expect "--infer-shapes" 0 "0 rewritten, 0 left" -- rewrite "$WORK/clip.onnx" -o "$WORK/inferred.onnx" --infer-shapes
check "--infer-shapes writes the inferred value_info (a larger file)" \
  test "$(stat -c %s "$WORK/inferred.onnx")" -gt "$(stat -c %s "$WORK/clip.onnx")"
# Fuzz regression: a @for that would pass the node cap is refused before it emits.
expect "fuzz: a huge constant N is left with the cap's reason" 1 "emits more than 100000 nodes" -- check "$SRC/tests/fuzz_regressions/model_vander_huge_n.onnx"
expect "fuzz: a zero kernel size is refused, not handed to ONNX's inference (SIGFPE)" 1 "kernel_shape 0: each must be at least 1" -- check "$SRC/tests/fuzz_regressions/model_max_pool3d_zero_kernel.onnx" --opset 10
expect "fuzz: combinations with a huge r is left by its guard, not unrolled into gigabytes" 1 "when 'r >= 1 and r <= 32" -- check "$SRC/tests/fuzz_regressions/model_combinations_huge_r.onnx"
expect "fuzz: affine_grid with an 800x800 size is rewritten from its constant table" 0 ": ok .1 to rewrite" -- check "$SRC/tests/fuzz_regressions/model_affine_grid_800x800_table.onnx"
# Slow units (their unit tests bound the work; here they run through the CLI, and under ASan in CI).
expect "fuzz: affine_grid with a wide size is rewritten" 0 ": ok .1 to rewrite" -- check "$SRC/tests/fuzz_regressions/model_affine_grid_quadratic_table.onnx"
expect "fuzz: roi_align_rotated with a million sample rows is left by its guard" 1 "when 'sampling_ratio > 0 and 0 < output_height \\* sampling_ratio <= 65536" -- check "$SRC/tests/fuzz_regressions/model_roi_align_rotated_huge_grid.onnx"
expect "fuzz: adaptive_avg_pool1d of 862 fragment calls is rewritten" 0 ": ok .1 to rewrite" -- check "$SRC/tests/fuzz_regressions/model_adaptive_avg_pool1d_many_fragments.onnx" --opset 18
expect "fuzz: a value of element type 75 makes a replacement refused, not an uncaught exception" 1 "not type-correct for this node: Invalid tensor data type 75" -- check "$SRC/tests/fuzz_regressions/model_polar_elem_type_75.onnx"
# --rules takes one path per flag: the model after it stays a positional argument.
expect "--rules PATH before the model" 0 "1 rewritten, 0 left" -- rewrite --rules "$SRC/rules/aten/asinh.textproto" "$ASINH" -o "$WORK/r.onnx"

# User rules override built-ins by id.
cat > "$WORK/override.textproto" <<'R'
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Sinh(self)" }
}
R
expect "user rule overrides built-in" 0 "-> Sinh \[aten-asinh\]" -- rewrite "$ASINH" -o "$WORK/ov.onnx" --rules "$WORK/override.textproto"
expect "rules list" 0 "aten-asinh .*aten::asinh" -- rules list
expect "rules show" 0 "signature: aten::asinh\(Tensor self\) -> Tensor" -- rules show aten-asinh
builtin_count=$("$BIN" rules list | grep -c .)
expect "a copy of the built-in rules folder loads with --no-builtin-rules (its targets repeat the built-in ones)" 0 "aten-asinh" -- rules list --no-builtin-rules --rules "$SRC/rules"
check "the copy gives the same rules" test "$("$BIN" rules list --no-builtin-rules --rules "$SRC/rules" | grep -c .)" = "$builtin_count"
expect "rules show unknown" 2 "no rule with id 'nope'" -- rules show nope

# Runtime targets: --target picks what runs and which alternatives apply.
INV=$FIX/corpus/inverse_op13/model.onnx
cat > "$WORK/inv_ort_only.textproto" <<'R'
rule {
  id: "ort-inv"
  match { aten: "linalg_inv" }
  signature: "aten::linalg_inv(Tensor A) -> Tensor"
  alternative { min_opset: 1 target: "onnxruntime" import { domain: "com.microsoft" version: 1 } replace: "out = com.microsoft.Inverse(A)" }
}
R
expect "target onnx (default): a node only another target's rule covers is left, naming the target" 1 "left +1 x .*: \[ort-inv\] .*inv_ort_only.textproto:5:3: for targets onnxruntime only \(target is onnx\)" -- rewrite "$INV" --dry-run --no-builtin-rules --rules "$WORK/inv_ort_only.textproto"
expect "target onnx (default): linalg_inv by the standard LU form" 0 "rewritten /ATen .*Loop.* \[aten-linalg-inv\]" -- rewrite "$INV" --dry-run -v
expect "target onnxruntime: linalg_inv -> Inverse" 0 "rewritten /ATen .*-> com.microsoft::Inverse \[aten-linalg-inv\]" -- rewrite "$INV" -o "$WORK/inv.onnx" --target onnxruntime -v
expect "com.microsoft::Inverse is unmapped under target onnx" 1 "1 x com.microsoft::Inverse +custom: no rule for com.microsoft::Inverse" -- scan "$WORK/inv.onnx"
expect "com.microsoft::Inverse runs under target onnxruntime" 0 "target onnxruntime, 0 unmapped nodes" -- scan "$WORK/inv.onnx" --target onnxruntime
expect "unknown target: usage error listing the targets" 2 "^onnx-remap: error: unknown target 'ort' \(known targets: onnx, onnxruntime, tensorrt" -- rewrite "$INV" -o "$WORK/inv2.onnx" --target ort
check "nothing written for an unknown target" test ! -e "$WORK/inv2.onnx"
expect "scan: unknown target" 2 "unknown target 'ort'" -- scan "$INV" --target ort
expect "rules targets" 0 "onnxruntime  \(rules/targets/onnxruntime.textproto\)" -- rules targets
expect "rules targets: what a target runs" 0 "runs: default-domain ONNX, ai.onnx.ml, com.microsoft" -- rules targets
expect "rules list shows an alternative's targets" 0 "aten-linalg-inv .*9\+ \[onnxruntime\]: com.microsoft::Inverse" -- rules list
expect "rules show shows an alternative's targets" 0 "alternative 1 \(opset 9\+, targets onnxruntime\)" -- rules show aten-linalg-inv
cat > "$WORK/my_target.textproto" <<'R'
target { name: "my-ort" doc: "onnxruntime with a plugin" domain: "com.microsoft" domain: "com.example" }
R
expect "a user target from --rules" 0 "target my-ort, 0 unmapped nodes" -- scan "$WORK/inv.onnx" --target my-ort --rules "$WORK/my_target.textproto"
cat > "$WORK/bad_target.textproto" <<'R'
rule {
  id: "inv-bad"
  match { aten: "linalg_inv" }
  signature: "aten::linalg_inv(Tensor A) -> Tensor"
  alternative { min_opset: 1 target: "onnxrt" replace: "out = Identity(A)" }
}
R
expect "an unknown target in a rule file: file:line:col, exit 4" 4 "bad_target.textproto:5:30: error: unknown target 'onnxrt'" -- rules list --rules "$WORK/bad_target.textproto"

# --target tensorrt: deformable convolutions -> TensorRT's ModulatedDeformConv2d
# plugin (NVIDIA/TensorRT plugin/modulatedDeformConvPlugin: inputs x, offset,
# mask, weight[, bias]; INT attributes stride, padding, dilation, group,
# deformable_group). onnxruntime cannot run the plugin, so the emitted node is
# checked as written: domain, op type, input order, attribute names and values.
# nodes MODEL PATTERN: a node line of tests/cli/onnx_nodes.mjs matches PATTERN.
nodes() { node "$SRC/tests/cli/onnx_nodes.mjs" "$1" | grep -Eq -- "$2"; }
DCN_MASK=$FIX/torch/custom_deform_conv2d_mask_op13/model.onnx   # inputs x, dcn.weight, offset, mask, dcn.bias
expect "tensorrt: custom::deform_conv2d -> ModulatedDeformConv2d plugin" 0 "-> trt.plugins::ModulatedDeformConv2d \[custom-deform-conv2d\]" -- rewrite "$DCN_MASK" -o "$WORK/dcn.trt.onnx" --target tensorrt
check "tensorrt: plugin inputs (x, offset, mask, weight, bias), attributes from the node" nodes "$WORK/dcn.trt.onnx" '^trt\.plugins::ModulatedDeformConv2d\(x, offset, mask, dcn\.weight, dcn\.bias\) deformable_group=2 dilation=\[1,1\] group=1 padding=\[1,1\] stride=\[2,2\]$'
expect "tensorrt: the plugin runs under target tensorrt" 0 "target tensorrt, 0 unmapped nodes" -- scan "$WORK/dcn.trt.onnx" --target tensorrt
expect "tensorrt: under target onnx the plugin is unmapped, covered by the plugin rule" 0 "1 x trt.plugins::ModulatedDeformConv2d .*\[tensorrt-modulated-deform-conv2d\]" -- scan "$WORK/dcn.trt.onnx"
expect "target onnx: the same node -> the standard decomposition" 0 "-> .*GatherElements.*MatMul.* \[custom-deform-conv2d\]" -- rewrite "$DCN_MASK" -o "$WORK/dcn.onnx.onnx"
DCN_V1=$FIX/torch/mmcv_deform_conv2d_op11/model.onnx             # mmcv::MMCVDeformConv2d(x, offset, weight.1), no mask
expect "tensorrt: mmcv::MMCVDeformConv2d -> ModulatedDeformConv2d plugin" 0 "-> Shape Constant Div ConstantOfShape trt.plugins::ModulatedDeformConv2d \[mmcv-deform-conv2d\]" -- rewrite "$DCN_V1" -o "$WORK/dcnv1.trt.onnx" --target tensorrt
check "tensorrt: DCNv1 gets a mask of ones shaped [N, offset channels / 2, Ho, Wo]" nodes "$WORK/dcnv1.trt.onnx" '^::Shape\(offset\)$'
check "tensorrt: DCNv1 plugin inputs (x, offset, ones, weight), no bias" nodes "$WORK/dcnv1.trt.onnx" '^trt\.plugins::ModulatedDeformConv2d\(x, offset, [^,]*/m, weight\.1\) deformable_group=2 dilation=\[1,1\] group=1 padding=\[1,1\] stride=\[1,1\]$'
check "tensorrt: the ones are Div(Shape(offset), [1, 2, 1, 1])" nodes "$WORK/dcnv1.trt.onnx" '^::ConstantOfShape\([^)]*/ms\) value='
MDCN9=$FIX/torch/mmdeploy_modulated_deform_conv2d_nobias_op9/model.onnx
expect "tensorrt: mmdeploy::MMCVModulatedDeformConv2d at opset 9 -> plugin" 0 "-> trt.plugins::ModulatedDeformConv2d \[mmcv-modulated-deform-conv2d\]" -- rewrite "$MDCN9" -o "$WORK/mdcn9.trt.onnx" --target tensorrt
check "tensorrt: plugin inputs (x, offset, mask, weight), padding [1, 0], stride [2, 2]" nodes "$WORK/mdcn9.trt.onnx" '^trt\.plugins::ModulatedDeformConv2d\(x, offset, mask, weight[.0-9]*\) deformable_group=1 dilation=\[1,1\] group=1 padding=\[1,0\] stride=\[2,2\]$'

# Every opset range of the plugin alternatives (9-10, 11-18, 19+) of each deformable-convolution rule.
for spec in "aten_deform_conv2d_mask_groups_dyn_op11::torchvision-deform-conv2d" "fallthrough_deform_conv2d_groups_op9::torchvision-deform-conv2d" \
            "aten_deform_conv2d_float64_op17:19:torchvision-deform-conv2d" "custom_deform_conv2d_mask_op9::custom-deform-conv2d" \
            "custom_deform_conv2d_mask_op13:19:custom-deform-conv2d" "mmcv_deform_conv2d_op9::mmcv-deform-conv2d" \
            "mmcv_deform_conv2d_op11:19:mmcv-deform-conv2d" "mmcv_modulated_deform_conv2d_bias_op11::mmcv-modulated-deform-conv2d" \
            "mmcv_modulated_deform_conv2d_bias_op11:19:mmcv-modulated-deform-conv2d"; do
  IFS=: read -r c o rule <<<"$spec"
  out=$WORK/$c.${o:-own}.trt.onnx
  expect "tensorrt: $c ${o:+--opset $o }-> plugin [$rule]" 0 "trt\.plugins::ModulatedDeformConv2d \[$rule\]" -- rewrite "$FIX/torch/$c/model.onnx" -o "$out" --target tensorrt ${o:+--opset $o}
  check "tensorrt: $c ${o:+--opset $o }plugin node has 4 or 5 inputs and the five INT attributes" nodes "$out" \
    '^trt\.plugins::ModulatedDeformConv2d\([^,)]+(, [^,)]+){3,4}\) deformable_group=[0-9]+ dilation=\[[0-9]+,[0-9]+\] group=[0-9]+ padding=\[[0-9]+,[0-9]+\] stride=\[[0-9]+,[0-9]+\]$'
done

# Large raw_data copied file to file (ONNX_REMAP_SPLICE_MIN_BYTES; docs/cli.md):
# the same bytes as a full parse and serialize, to another file and in place.
for spec in "arch_deform_conv_backbone_op13:" "arch_deform_conv_block_op9:" "arch_deform_conv_block_op11:19"; do
  IFS=: read -r c o <<<"$spec"
  in=$FIX/torch/$c/model.onnx
  ONNX_REMAP_SPLICE_MIN_BYTES=0 "$BIN" rewrite "$in" -o "$WORK/$c.plain.onnx" ${o:+--opset $o} -q
  ONNX_REMAP_SPLICE_MIN_BYTES=1024 "$BIN" rewrite "$in" -o "$WORK/$c.spliced.onnx" ${o:+--opset $o} -q
  check "splice: $c ${o:+--opset $o }writes the plain path's bytes" cmp "$WORK/$c.plain.onnx" "$WORK/$c.spliced.onnx"
  cp "$in" "$WORK/$c.inplace.onnx"
  ONNX_REMAP_SPLICE_MIN_BYTES=1024 "$BIN" rewrite "$WORK/$c.inplace.onnx" -o "$WORK/$c.inplace.onnx" ${o:+--opset $o} -q
  check "splice: $c ${o:+--opset $o }in place writes the plain path's bytes" cmp "$WORK/$c.plain.onnx" "$WORK/$c.inplace.onnx"
done
ONNX_REMAP_SPLICE_MIN_BYTES=64k expect "splice threshold not a byte count" 2 "^onnx-remap: error: ONNX_REMAP_SPLICE_MIN_BYTES=64k: expected a byte count \(0: never\)$" -- rewrite "$ASINH" -o "$WORK/splice_bad.onnx"
ONNX_REMAP_DEFER_MIN_BYTES=-1 expect "deferral threshold not a byte count" 2 "^onnx-remap: error: ONNX_REMAP_DEFER_MIN_BYTES=-1: expected a byte count \(0: never\)$" -- rewrite "$ASINH" -o "$WORK/defer_bad.onnx"
ONNX_REMAP_MEMO_ENTRIES=many expect "memo size not a count" 2 "^onnx-remap: error: ONNX_REMAP_MEMO_ENTRIES=many: expected a count \(0: never\)$" -- rewrite "$ASINH" -o "$WORK/memo_bad.onnx"
check "nothing written for a bad splice threshold" test ! -e "$WORK/splice_bad.onnx"
check "nothing written for a bad memo size" test ! -e "$WORK/memo_bad.onnx"
ONNX_REMAP_MATCH_BATCH=1e3 expect "match batch not a count" 2 "^onnx-remap: error: ONNX_REMAP_MATCH_BATCH=1e3: expected a count \(0 or 1: one node at a time\)$" -- rewrite "$ASINH" -o "$WORK/batch_bad.onnx"
check "nothing written for a bad match batch" test ! -e "$WORK/batch_bad.onnx"

# The tutorial's user rule (docs/tutorial.md) works as shown.
expect "tutorial: runtime plugin rule" 0 "-> mmcv::MMCVModulatedDeformConv2d \[deform-conv2d-mmcv\]" -- rewrite "$SRC/examples/dcn.onnx" -o "$WORK/dcn.mmcv.onnx" --rules "$SRC/examples/rules"
expect "tutorial: DeformConv at opset 19" 0 "-> DeformConv \[torchvision-deform-conv2d\]" -- rewrite "$SRC/examples/dcn.onnx" -o "$WORK/dcn.19.onnx" --opset 19
expect "tutorial: example at opset 14" 0 "2 rewritten, 0 left, opset 13 -> 14" -- rewrite "$SRC/examples/conv_asinh_tril.onnx" -o "$WORK/fixed.onnx" --opset 14

finish
