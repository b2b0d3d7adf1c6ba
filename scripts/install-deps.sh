#!/usr/bin/env bash
# Installs what onnx-remap needs on Debian 12: build dependencies, and with
# --test also Node.js/npm, the onnxruntime-node test harness and ONNX's test models.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
# libmimalloc-dev: the onnx-remap executable's allocator (cmake/Allocator.cmake).
build_pkgs=(g++ cmake make libonnx-dev libprotobuf-dev protobuf-compiler libcli11-dev libfmt-dev libmimalloc-dev)
# dpkg-dev (dpkg-shlibdeps) and file: CPack computes the .deb's Depends with them (install.cpack_deb).
# libonnx-testdata: ONNX's backend-test models, rewritten in fidelity.onnx_testdata_roundtrip.
# clang and its runtime libraries (libFuzzer, ASan, UBSan): the sanitizer build and the fuzz targets.
# time: /usr/bin/time, which times and measures the runs of bench.smoke and cli.external_data_files
# (a minimal Debian has only bash's `time` keyword).
# man-db, zsh, valgrind: cli.man_page_renders, cli.zsh_completion and bench.counts_smoke,
# which a configure without them leaves out (a minimal Debian has none of them).
test_pkgs=(catch2 dpkg-dev file libonnx-testdata clang libclang-rt-14-dev time man-db zsh valgrind)
want=("${build_pkgs[@]}")
if [[ ${1:-} == --test ]]; then
  want+=("${test_pkgs[@]}")
  command -v node >/dev/null && command -v npm >/dev/null || want+=(nodejs npm)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ${1:-} == --test ]]; then
  # onnxruntime-node ships its native binding in the package: no install scripts needed.
  if [[ ! -d tests/ort/node_modules/onnxruntime-node ]] || ! cmp -s tests/ort/package-lock.json tests/ort/node_modules/.package-lock.json 2>/dev/null; then
    npm ci --ignore-scripts --no-audit --no-fund --prefix tests/ort >/dev/null
  fi
fi
