#!/usr/bin/env bash
# dpkg_install_test.sh CMAKE SOURCE_DIR DEB_DIR WORK
# As root only: `dpkg -i` the package (which checks its Depends against the
# installed packages), build tests/consumer from the system's default paths,
# check man and bash-completion find their files, then remove the package.
# Exit 77 (skipped) without root, or when onnx-remap is already installed:
# the test must not replace or remove a package it did not install.
set -euo pipefail
CMAKE=$1 SRC=$2 DEB_DIR=$3 WORK=$4
here=$(dirname "$0")
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: dpkg -i needs root"; exit 77; fi
if dpkg-query -W -f='${Status}' onnx-remap 2>/dev/null | grep -q "install ok installed"; then
  echo "SKIP: an onnx-remap package is already installed; not touching it"; exit 77
fi
deb=$(ls "$DEB_DIR"/onnx-remap_*.deb)
trap 'dpkg -r onnx-remap >/dev/null 2>&1 || echo "WARNING: dpkg -r onnx-remap failed"' EXIT
dpkg -i "$deb" >"$DEB_DIR/dpkg-i.log" 2>&1 || { cat "$DEB_DIR/dpkg-i.log"; echo "FAIL: dpkg -i (Depends not met?)"; exit 1; }
fail=0
[[ $(command -v onnx-remap) == /usr/bin/onnx-remap ]] || { echo "FAIL: onnx-remap is not /usr/bin/onnx-remap"; fail=1; }
onnx-remap --version | grep -q '^onnx-remap ' || { echo "FAIL: onnx-remap --version"; fail=1; }
if command -v man >/dev/null; then
  [[ $(man -w onnx-remap 2>/dev/null) == /usr/share/man/man1/onnx-remap.1* ]] || { echo "FAIL: man -w onnx-remap"; fail=1; }
fi
bash "$here/consumer_check.sh" "$CMAKE" "$SRC" "$WORK"
((fail == 0)) || exit 1
echo "PASS: dpkg -i $(basename "$deb"); the consumer builds from /usr; the package is removed again"
