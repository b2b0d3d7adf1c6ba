#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need, builds
# with -Werror and runs every ctest (unit, CLI, end-to-end in onnxruntime),
# then rebuilds with clang's ASan+UBSan, runs the suite again and fuzzes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test

jobs=$(nproc)
cmake -S . -B build-ci -DONNX_REMAP_WERROR=ON -DONNX_REMAP_REQUIRE_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-ci -j"$jobs"
(cd build-ci && ctest --output-on-failure -j"$jobs")

# The sanitizer run skips the labels `build` (a plain rebuild of the tool, already run above),
# `install` (cmake --install, cpack and the consumer build: packaging, not memory safety,
# and a consumer built without -fsanitize cannot link the ASan-built library; the -Werror
# pass above runs them) and `docs` (the rule table's data, already compared
# above; under ASan its ~700 dry-run rewrites took over 9 minutes of the CI run), and
# checks every fifth e2e case: the rewrites
# are what it watches, the -Werror pass above checks them all, and the full ASan e2e took
# about 20 of the run's 46 minutes (every second case, at -O0: 18 of 52; every third, at
# -O1, with 1,180 torch cases: 11 of 45.5, over the 45 allowed).
#
# -O1 rather than -O0: ASan's own documentation recommends it for reasonable speed, and it
# keeps every check (assertions stay on: this is still a Debug build).
#
# The sanitizer build uses clang so that the same build also gives the libFuzzer
# targets of fuzz/ (ONNX_REMAP_FUZZ=ON: everything carries libFuzzer's coverage
# instrumentation, which the tests do not notice); each then runs for 60 s,
# seeded from the test fixtures (scripts/fuzz.sh). A third build would cost
# more than CI's time allows.
CXX=clang++ cmake -S . -B build-asan -DONNX_REMAP_WERROR=ON -DONNX_REMAP_REQUIRE_TESTS=ON -DONNX_REMAP_SANITIZE=ON -DONNX_REMAP_FUZZ=ON -DONNX_REMAP_E2E_SAMPLE=5 -DONNX_REMAP_CONVERT_SAMPLE=5 -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-g -O1' >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j"$jobs" -LE "^(build|docs|install)$")
FUZZ_BUILD_DIR=build-asan bash scripts/fuzz.sh 60
