#!/usr/bin/env bash
# cpack_deb_test.sh CPACK BUILD_DIR DEB_DIR
# Builds the .deb from the build tree into DEB_DIR (for the tests that install
# it) and checks its control fields and contents.
set -euo pipefail
CPACK=$1 BUILD=$2 OUT=$3
rm -rf "$OUT"
mkdir -p "$OUT"
"$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$OUT" >"$OUT/cpack.log" 2>&1 || { cat "$OUT/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
debs=("$OUT"/onnx-remap_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { echo "FAIL: expected one onnx-remap_*.deb in $OUT"; ls "$OUT"; exit 1; }
deb=${debs[0]}

fail=0
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == onnx-remap ]] || { echo "FAIL: Package is '$(field Package)'"; fail=1; }
[[ -n $(field Version) && -n $(field Architecture) && -n $(field Maintainer) ]] || { echo "FAIL: Version/Architecture/Maintainer missing"; fail=1; }
depends=$(field Depends)
echo "Depends: $depends"
# The tool's shared libraries, and the -dev packages the headers and the static library need.
names=$(sed -e 's/ *([^)]*)//g' -e 's/, */\n/g' <<<"$depends")
for p in libonnx1 libprotobuf32 libfmt9 libstdc++6 libc6 libonnx-dev libprotobuf-dev libfmt-dev; do
  grep -qxF "$p" <<<"$names" || { echo "FAIL: Depends lacks $p"; fail=1; }
done
# Each -dev package is held to the version series the package was built with.
for p in libonnx-dev libprotobuf-dev libfmt-dev; do
  grep -qE "$p \(<< [0-9.]+\)" <<<"$depends" || { echo "FAIL: Depends has no upper bound for $p"; fail=1; }
done

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/onnx-remap ./usr/share/man/man1/onnx-remap.1 ./usr/share/bash-completion/completions/onnx-remap \
         ./usr/share/zsh/vendor-completions/_onnx-remap ./usr/share/onnx-remap/rules/aten/asinh.textproto \
         ./usr/lib/libonnx_remap.a ./usr/include/onnx_remap/pipeline/pipeline.h ./usr/include/onnx_remap/proto/rules.pb.h \
         ./usr/include/onnx_remap/report/report.pb.h ./usr/lib/cmake/onnx_remap/onnx_remapConfig.cmake \
         ./usr/lib/cmake/onnx_remap/onnx_remapConfigVersion.cmake ./usr/lib/cmake/onnx_remap/onnx_remapTargets.cmake; do
  grep -qxF "$f" <<<"$contents" || { echo "FAIL: the package lacks $f"; fail=1; }
done
# Everything is under /usr: nothing for /usr/local or the build machine's paths.
if grep -v '^\./usr/' <<<"$contents" | grep -v '^\./$' | grep -q .; then
  echo "FAIL: files outside /usr:"; grep -v '^\./usr/' <<<"$contents" | grep -v '^\./$'; fail=1
fi
((fail == 0)) || exit 1
echo "PASS: $(basename "$deb"): control fields, Depends and contents"
