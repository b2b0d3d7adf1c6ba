#!/usr/bin/env bash
# consumer_check.sh CMAKE SOURCE_DIR WORK [PREFIX]
# Configures and builds tests/consumer with find_package(onnx_remap) (from
# PREFIX, or from the system's default paths when there is none), runs it on
# a fixture model and a folder of two, and checks what it prints and writes.
# Sourced by the tests that install the package; exits on failure.
set -euo pipefail
CMAKE=$1 SRC=$2 WORK=$3 PREFIX=${4:-}
rm -rf "$WORK"
mkdir -p "$WORK/models/sub"
args=(-S "$SRC/tests/consumer" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release)
[[ -n $PREFIX ]] && args+=(-DCMAKE_PREFIX_PATH="$PREFIX")
"$CMAKE" "${args[@]}" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; echo "FAIL: configuring tests/consumer"; exit 1; }
found=$(sed -n 's/^onnx_remap_DIR:PATH=//p' "$WORK/build/CMakeCache.txt")
echo "find_package(onnx_remap) found $found"
if [[ -n $PREFIX && $found != "$PREFIX"/* ]]; then echo "FAIL: onnx_remap was not found under $PREFIX"; exit 1; fi
"$CMAKE" --build "$WORK/build" -j2 >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; echo "FAIL: building tests/consumer"; exit 1; }

model=$SRC/tests/fixtures/corpus/asinh_op13/model.onnx
cp "$model" "$WORK/models/a.onnx"
cp "$SRC/tests/fixtures/corpus/asinh_op17/model.onnx" "$WORK/models/sub/b.onnx"
set +e
"$WORK/build/consumer" "$model" "$WORK/out.onnx" "$WORK/models" "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
set -e
cat "$WORK/stdout" "$WORK/stderr"
fail=0
[[ $rc -eq 0 ]] || { echo "FAIL: consumer exited $rc"; fail=1; }
grep -qE '^library [0-9.]+: [0-9]+ rules$' "$WORK/stdout" || { echo "FAIL: no built-in rules loaded"; fail=1; }
grep -qxF "single: 1 rewritten, 0 left, written $WORK/out.onnx" "$WORK/stdout" || { echo "FAIL: single model line"; fail=1; }
[[ -s $WORK/out.onnx ]] || { echo "FAIL: $WORK/out.onnx not written"; fail=1; }
json=$(grep '^{' "$WORK/stdout" || true)
for want in '"schema":"onnx-remap-report/1"' '"command":"rewrite"' '"outcome":"clean"' '"rule":"aten-asinh"' '"exit_code":0'; do
  grep -qF "$want" <<<"$json" || { echo "FAIL: the JSON report lacks $want"; fail=1; }
done
grep -qxF "batch: 2 models, 2 clean, 2 written" "$WORK/stdout" || { echo "FAIL: batch line"; fail=1; }
[[ -s $WORK/out/a.onnx && -s $WORK/out/sub/b.onnx ]] || { echo "FAIL: the batch did not mirror models/ into out/"; fail=1; }
((fail == 0)) || exit 1
