#!/usr/bin/env bash
# cmake_install_test.sh CMAKE BUILD_DIR SOURCE_DIR PREFIX
# `cmake --install` into PREFIX puts each part in its GNUInstallDirs place.
set -euo pipefail
CMAKE=$1 BUILD=$2 SRC=$3 PREFIX=$4
rm -rf "$PREFIX"
mkdir -p "$(dirname "$PREFIX")"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$PREFIX.log" 2>&1 || { cat "$PREFIX.log"; echo "FAIL: cmake --install"; exit 1; }

fail=0
expect() { [[ -e $PREFIX/$1 ]] || { echo "FAIL: missing $1"; fail=1; }; }
expect bin/onnx-remap
expect share/man/man1/onnx-remap.1
expect share/bash-completion/completions/onnx-remap
expect share/zsh/vendor-completions/_onnx-remap
expect lib/libonnx_remap.a
expect lib/cmake/onnx_remap/onnx_remapConfig.cmake
expect lib/cmake/onnx_remap/onnx_remapConfigVersion.cmake
expect lib/cmake/onnx_remap/onnx_remapTargets.cmake
# The public API's headers, in their folders, and the generated protobuf headers they include.
for h in rules/rule_set.h pipeline/pipeline.h pipeline/batch.h report/report_builder.h report/exit_codes.h \
         core/status.h core/version.h proto/rules.pb.h report/report.pb.h; do
  expect "include/onnx_remap/$h"
done
[[ ! -e $PREFIX/include/onnx_remap/cli ]] || { echo "FAIL: the CLI's headers are installed"; fail=1; }

# Every header a library header includes ("folder/file.h") is installed too.
while read -r inc; do
  [[ -e $PREFIX/include/onnx_remap/$inc ]] || { echo "FAIL: an installed header includes $inc, which is not installed"; fail=1; }
done < <(grep -rhoE '^#include "[a-z_]+/[a-z_.]+"' "$PREFIX/include/onnx_remap" | sed -E 's/#include "(.*)"/\1/' | sort -u)

# The rules folder is a readable copy of rules/.
diff -r "$SRC/rules" "$PREFIX/share/onnx-remap/rules" >/dev/null || { echo "FAIL: share/onnx-remap/rules differs from rules/"; fail=1; }

# Nothing installed points back into the build or source tree.
if grep -rlF -e "$BUILD" -e "$SRC/src" "$PREFIX/lib/cmake" "$PREFIX/share/man" "$PREFIX/share/bash-completion" >/dev/null; then
  echo "FAIL: installed files name the build or source tree:"; grep -rlF -e "$BUILD" -e "$SRC/src" "$PREFIX/lib/cmake" "$PREFIX/share"; fail=1
fi

"$PREFIX/bin/onnx-remap" --version | grep -q '^onnx-remap ' || { echo "FAIL: installed onnx-remap --version"; fail=1; }
((fail == 0)) || exit 1
echo "PASS: cmake --install put the tool, man page, completions, rules, library, headers and CMake package in place"
