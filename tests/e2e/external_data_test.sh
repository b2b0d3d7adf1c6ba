#!/usr/bin/env bash
# Models whose weights are external data, rewritten in every placement a user
# meets. Each output must load with its data and match PyTorch in onnxruntime,
# and the input folder must be left as it was.
#
#   external_data_test.sh BIN SOURCE_DIR WORK_DIR
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3
COMPARE=$SRC/tests/ort/compare.mjs
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
passed=0 failed=0

ok() { echo "PASS $1"; ((passed++)); }
bad() { echo "FAIL $1"; [[ -n ${2:-} && -s $2 ]] && sed 's/^/    | /' "$2"; ((failed++)); }
digest() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }

# run NAME CASE_DIR RUN_FROM MODEL_ARG OUT_ARG [EXTRA...]: rewrite from RUN_FROM with the
# paths as given, then check the output (resolved from RUN_FROM) against CASE_DIR's data.
run() {
  local name=$1 case_dir=$2 from=$3 model=$4 out=$5
  shift 5
  local log=$WORK/log.$((passed + failed))
  local before
  before=$(digest "$case_dir")
  if ! (cd "$from" && "$BIN" rewrite "$model" -o "$out" "$@") >"$log" 2>&1; then
    bad "$name: rewrite failed" "$log"; return
  fi
  local out_abs
  out_abs=$(cd "$from" && realpath "$out")
  if [[ $out_abs != "$(cd "$from" && realpath "$model")" ]]; then
    # every file that was there is unchanged (the output itself may sit among them)
    local after
    after=$(digest "$case_dir" | grep -v " \./${out_abs#"$case_dir"/}\$")
    [[ $before == "$after" ]] || { bad "$name: the input folder changed"; return; }
  fi
  if ! node "$COMPARE" "$out_abs" "$case_dir" --rtol 1e-4 --atol 1e-5 >"$log.cmp" 2>&1; then
    bad "$name: output does not run or match in onnxruntime" "$log.cmp"; return
  fi
  ok "$name"
}

# One data file next to the model, one in a subfolder, and one file per tensor
# (the tensors of a shared file sit at different offsets).
for case in external_data_asinh_op13 external_data_subdir_asinh_op13 external_data_files_asinh_op13; do
  orig=$SRC/tests/fixtures/torch/$case
  mapfile -t locs < <(cd "$orig" && find . -name '*.bin' | sed 's|^\./||' | LC_ALL=C sort)
  [[ ${#locs[@]} -gt 0 ]] || bad "$case: no data file in the fixture"
  # a private copy of the case, so outputs "next to the input" never touch the source tree
  fresh() { rm -rf "$WORK/$case/$1" && mkdir -p "$WORK/$case/$1" && cp -r "$orig"/. "$WORK/$case/$1/"; }

  fresh next; run "$case: output next to the input" "$WORK/$case/next" "$WORK" "$case/next/model.onnx" "$case/next/fixed.onnx"

  fresh src; mkdir -p "$WORK/$case/elsewhere"
  run "$case: output in another folder" "$WORK/$case/src" "$WORK" "$case/src/model.onnx" "$case/elsewhere/fixed.onnx"
  for loc in "${locs[@]}"; do
    [[ -f $WORK/$case/elsewhere/$loc ]] && ok "$case: data file $loc copied along" || bad "$case: $loc not copied to the output folder"
  done

  fresh inplace; cp -r "$WORK/$case/inplace" "$WORK/$case/inplace.ref"
  run "$case: in place" "$WORK/$case/inplace.ref" "$WORK" "$case/inplace/model.onnx" "$case/inplace/model.onnx"
  for loc in "${locs[@]}"; do
    cmp -s "$WORK/$case/inplace/$loc" "$orig/$loc" && ok "$case: in place keeps $loc as it was" || bad "$case: in place changed $loc"
  done

  fresh cwd; mkdir -p "$WORK/elsewhere-cwd"
  run "$case: run from another working directory" "$WORK/$case/cwd" "$WORK/elsewhere-cwd" "../$case/cwd/model.onnx" "../$case/cwd-out/fixed.onnx"

  fresh abs
  run "$case: absolute paths, run from /" "$WORK/$case/abs" / "$WORK/$case/abs/model.onnx" "$WORK/$case/abs-out/fixed.onnx"
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
