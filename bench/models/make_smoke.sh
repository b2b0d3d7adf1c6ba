#!/usr/bin/env bash
# Regenerates the tiny committed models of `bench/run.sh --smoke` (the ctest
# bench.smoke runs them in CI, where Python onnx may be missing):
#   bash bench/models/make_smoke.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/smoke
rm -rf "$out" && mkdir -p "$out"
gen() { /usr/bin/python3 "$here/generate.py" "$@"; }
gen chain "$out/chain.onnx" --nodes 2000
gen layers "$out/layers.onnx" --layers 2 --hidden 16 --seq 4
gen layers "$out/layers-ext.onnx" --layers 2 --hidden 16 --seq 4 --external
gen control "$out/control.onnx" --blocks 8
