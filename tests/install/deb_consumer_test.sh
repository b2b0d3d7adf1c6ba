#!/usr/bin/env bash
# deb_consumer_test.sh CMAKE SOURCE_DIR DEB_DIR WORK
# Unpacks the .deb without root (dpkg-deb -x) and builds tests/consumer
# against it with -DCMAKE_PREFIX_PATH=ROOT/usr; runs the packaged tool too.
set -euo pipefail
CMAKE=$1 SRC=$2 DEB_DIR=$3 WORK=$4
here=$(dirname "$0")
rm -rf "$WORK"
mkdir -p "$WORK/root"
deb=$(ls "$DEB_DIR"/onnx-remap_*.deb)
dpkg-deb -x "$deb" "$WORK/root"
"$WORK/root/usr/bin/onnx-remap" rewrite "$SRC/tests/fixtures/corpus/asinh_op13/model.onnx" -o "$WORK/cli.onnx" >/dev/null
[[ -s $WORK/cli.onnx ]] || { echo "FAIL: the packaged onnx-remap did not write its output"; exit 1; }
bash "$here/consumer_check.sh" "$CMAKE" "$SRC" "$WORK/consumer" "$WORK/root/usr"
echo "PASS: $(basename "$deb") unpacked; its onnx-remap rewrites, and tests/consumer builds against it and does what the CLI does"
