#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan+UBSan) and runs each for
# SECONDS (default 60), starting from seeds copied from the test fixtures.
# Prints each target's executions and findings; exits 1 when a target found a
# crash, leak, timeout, out-of-memory or sanitizer report (its input is kept
# under BUILD/fuzz/findings/TARGET/ and its log printed).
#   usage: scripts/fuzz.sh [SECONDS]
#   FUZZ_BUILD_DIR: the build to use (default build-fuzz, configured here when
#   new); CI passes its ASan build, which is configured with ONNX_REMAP_FUZZ=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
targets=(model_fuzzer rule_file_fuzzer)

if [[ ! -f $build/CMakeCache.txt ]]; then
  CXX=clang++ cmake -S . -B "$build" -DONNX_REMAP_SANITIZE=ON -DONNX_REMAP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
elif ! grep -q '^ONNX_REMAP_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz.sh: $build is not configured with -DONNX_REMAP_FUZZ=ON" >&2
  exit 2
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >/dev/null

# Seeds are copies of committed fixtures, made afresh each run; what the
# fuzzer adds goes to BUILD/fuzz/corpus/TARGET and is kept between runs.
work=$build/fuzz
rm -rf "$work/seeds"
mkdir -p "$work/seeds/model_fuzzer" "$work/seeds/rule_file_fuzzer"
seed() {  # seed TARGET FILE...: copies under names made from their paths
  local target=$1 f
  shift
  for f in "$@"; do cp "$f" "$work/seeds/$target/${f//\//_}"; done
}
# Small models only, and every FUZZ_SEED_EVERY-th of them (default 8): libFuzzer
# runs every seed once before it mutates, and under ASan all ~1000 fixtures
# alone take minutes, more than CI's 60 s.
every=${FUZZ_SEED_EVERY:-8}
mapfile -t models < <(find tests/fixtures/torch tests/fixtures/corpus -name '*.onnx' -size -16k | sort | awk -v n="$every" 'NR % n == 1')
seed model_fuzzer "${models[@]}"
# Inputs the fuzzer once found (crash, slow unit), kept so that every run
# tries them again first (tests/fuzz_regressions/README.md).
seed model_fuzzer tests/fuzz_regressions/model_*.onnx
mapfile -t rule_files < <(find rules tests/unit/bad_rules -name '*.textproto' | sort | awk -v n="$every" 'NR % n == 1 || /bad_rules/')
seed rule_file_fuzzer "${rule_files[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for target in "${targets[@]}"; do
  mkdir -p "$work/corpus/$target" "$work/findings/$target"
  log=$work/$target.log
  # -rss_limit_mb/-malloc_limit_mb: a declared size that makes us allocate
  # gigabytes is a finding (oom-*), not a machine brought down. -timeout=120:
  # bounded but slow work is no hang (a replacement at its 100000-node cap
  # takes ~2 s optimized, over 60 s in an -O0 ASan build on a busy machine).
  # -report_slow_units=40 (libFuzzer's default is 10): a unit that slow is a
  # finding (slow-unit-*). A max_pool3d with a 32770-wide dilated kernel
  # (98k replacement nodes, under the cap) takes 3.7 s optimized and 20 s
  # here; the slow units found so far took 52 s and 57 s
  # (tests/fuzz_regressions/README.md).
  rc=0
  touch "$log.start"
  "$build/bin/$target" "$work/corpus/$target" "$work/seeds/$target" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=120 -report_slow_units=40 \
    -print_final_stats=1 -artifact_prefix="$work/findings/$target/" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # Without final stats (a crash), the last status line's "#N" counts them.
  [[ -n $execs ]] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  findings=$(find "$work/findings/$target" -type f -newer "$log.start" 2>/dev/null | wc -l)
  echo "$target: ${execs:-?} executions in ${seconds} s, exit $rc, findings: $findings"
  if [[ $rc -ne 0 || $findings -ne 0 ]]; then
    status=1
    find "$work/findings/$target" -type f -newer "$log.start" -printf '  %p\n'
    tail -n 60 "$log"
  fi
done
exit $status
