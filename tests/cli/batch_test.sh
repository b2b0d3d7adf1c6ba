#!/usr/bin/env bash
# Folders of models and the CI-facing options: mirrored output trees, --jobs,
# --shard, --skip-existing, --other-files, check, --report (JSON held to its
# schema by report_check, JUnit), --explain, -q/-v, colour, --config, --version.
#   batch_test.sh BIN SOURCE_DIR WORK_DIR REPORT_CHECK ALLOCATOR
# ALLOCATOR: what the build linked ("mimalloc" or "system malloc").
set -uo pipefail
BIN=$1 SRC=$2 WORK=$3 REPORT_CHECK=$4 ALLOCATOR=$5
FIX=$SRC/tests/fixtures
rm -rf "$WORK" && mkdir -p "$WORK"
cd "$WORK" || exit 1
source "$SRC/tests/cli/expect_lib.sh"
tree_hash() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
paths_in() { grep -o '"path":"[^"]*"' "$1" | sort; }

# A zoo: nested folders, external data (next to the model and in a subfolder),
# a model with a node no rule rewrites, a file that is not a model, another file.
mkdir -p zoo/vision/deep zoo/ext zoo/ext2
cp "$FIX/corpus/asinh_op13/model.onnx" zoo/vision/asinh.onnx
cp "$FIX/corpus/logit_op13/model.onnx" zoo/vision/deep/logit.onnx
cp "$FIX/corpus/svd_op13/model.onnx" zoo/svd.onnx
cp "$FIX/torch/external_data_asinh_op13/model.onnx" "$FIX/torch/external_data_asinh_op13/weights.bin" zoo/ext/
cp -r "$FIX/torch/external_data_subdir_asinh_op13/model.onnx" "$FIX/torch/external_data_subdir_asinh_op13/data" zoo/ext2/
printf 'not a model\n' > zoo/broken.onnx
printf '# my zoo\n' > zoo/README.md
zoo_hash=$(tree_hash zoo)

expect "batch: worst outcome is the exit code (a broken model: 3)" 3 "^6 models in .*: 4 clean, 1 with nodes left, 1 failed, 0 skipped" -- rewrite zoo -o out --jobs 2
check "batch: the tree is mirrored" test -s out/vision/asinh.onnx -a -s out/vision/deep/logit.onnx -a -s out/svd.onnx
check "batch: external data next to the model follows it" cmp -s zoo/ext/weights.bin out/ext/weights.bin
check "batch: external data in a subfolder follows it" test -n "$(ls out/ext2/data)"
check "batch: nothing written for the broken model" test ! -e out/broken.onnx
check "batch: other files skipped by default" test ! -e out/README.md
check "batch: the input tree is untouched" test "$(tree_hash zoo)" = "$zoo_hash"
check "batch: no temp files left" test -z "$(find out -name '.*.tmp-*')"
expect "batch: one plain line per model without a terminal" 3 "^\[[0-9]/6\] zoo/vision/deep/logit.onnx: 1 rewritten, 0 left -> out1/vision/deep/logit.onnx$" -- rewrite zoo -o out1 --jobs 1
"$BIN" rewrite zoo -o out4 --jobs 4 >/dev/null 2>&1
check "batch: same bytes whatever --jobs is" diff -r out1 out4
expect "batch: the broken model's error names it" 3 "onnx-remap: error: zoo/broken.onnx: not an ONNX model" -- rewrite zoo -o out5 -q
expect "batch: --other-files copy" 3 "1 other file copied" -- rewrite zoo -o out6 --other-files copy
check "batch: README copied" cmp -s zoo/README.md out6/README.md

touch -d '2001-01-01' out1/vision/asinh.onnx
expect "batch: --skip-existing resumes" 3 "5 skipped" -- rewrite zoo -o out1 --skip-existing
check "batch: a skipped output is not rewritten" test "$(stat -c %Y out1/vision/asinh.onnx)" = "$(date -d 2001-01-01 +%s)"

# Shards: disjoint, and together every model.
"$BIN" scan zoo --json > all.json 2>/dev/null
for i in 0 1 2; do "$BIN" scan zoo --shard $i/3 --json > shard$i.json 2>/dev/null; done
check "shards: 6 models in all" test "$(paths_in all.json | wc -l)" = 6
check "shards: together they cover every model" test "$(cat shard0.json shard1.json shard2.json > shards.json; paths_in shards.json)" = "$(paths_in all.json)"
check "shards: disjoint" test -z "$(cat shard0.json shard1.json shard2.json > shards.json; paths_in shards.json | uniq -d)"
check "shards: the split does not depend on the run" test "$("$BIN" scan zoo --shard 1/3 --json 2>/dev/null | grep -o '"path":"[^"]*"')" = "$(grep -o '"path":"[^"]*"' shard1.json)"
expect "shards: a shard that does not exist" 2 "--shard 3/3: expected I/N with 0 <= I < N" -- scan zoo --shard 3/3

# An output tree inside the input tree is not read back as input.
mkdir zoo2 && cp zoo/vision/asinh.onnx zoo/vision/deep/logit.onnx zoo2/
"$BIN" rewrite zoo2 -o zoo2/out >/dev/null 2>&1
expect "batch: the output tree inside the input is not an input" 0 "^2 models in" -- rewrite zoo2 -o zoo2/out
expect "batch: a folder's output must be a folder" 2 "asinh.onnx: the output of a folder must be a folder" -- rewrite zoo2 -o "$WORK/out1/vision/asinh.onnx"
expect "batch: a folder needs -o" 2 "--output" -- rewrite zoo2

# check: a CI gate that writes nothing.
touch marker && sleep 1
expect "check: clean models exit 0, one line each" 0 "^zoo2/asinh.onnx: ok \(1 to rewrite\)$" -- check zoo2/asinh.onnx zoo2/logit.onnx
expect "check: a node left exits 1 with the reason" 1 "^zoo/svd.onnx: not ok, 1 node would be left$" -- check zoo/svd.onnx zoo2
expect "check: the reason line" 1 "left +1 x org.pytorch.aten::ATen linalg_svd: aten::linalg_svd has no standard ONNX equivalent" -- check zoo/svd.onnx
MMCV=("--no-builtin-rules" "--rules" "$SRC/examples/rules/deform_conv_mmcv.textproto")
expect "check: --opset too low for a rule is a failure" 1 "needs opset 11" -- check "$FIX/torch/arch_deform_conv_block_op9/model.onnx" "${MMCV[@]}"
expect "check: --opset high enough passes" 0 ": ok " -- check "$FIX/torch/arch_deform_conv_block_op9/model.onnx" --opset 11 "${MMCV[@]}"
check "check: nothing written" test -z "$(find . -newer marker -name '*.onnx')"

# Reports.
expect "report: JSON file" 1 "" -- check zoo/svd.onnx zoo2/asinh.onnx zoo2/logit.onnx --report report.json
"$REPORT_CHECK" report.json > rc.out 2>&1; check "report: the JSON holds to report.proto" grep -q "^ok: 3 models, exit_code 1$" rc.out
check "report: schema version" grep -q '"schema": "onnx-remap-report/1"' report.json
check "report: per-node candidates with locations" grep -q '"outcome": "no-standard-form"' report.json
"$BIN" rewrite zoo -o out7 --report batch.json >/dev/null 2>&1
"$REPORT_CHECK" batch.json > rc.out 2>&1; check "report: a batch's JSON holds to report.proto" grep -q "^ok: 6 models, exit_code 3$" rc.out
check "report: the failed model's stage and code" grep -q '"code": "not-onnx"' batch.json
sed 's/"schema"/"surprise": 1, "schema"/' report.json > tampered.json
check "report_check refuses a field the schema does not have" bash -c "! '$REPORT_CHECK' tampered.json >/dev/null 2>&1"
sed 's/"exit_code": 1,$/"exit_code": "one",/' report.json > tampered2.json
check "report_check refuses a wrong type" bash -c "! '$REPORT_CHECK' tampered2.json >/dev/null 2>&1"
expect "report: JUnit" 1 "" -- check zoo/svd.onnx zoo2/asinh.onnx zoo2/logit.onnx --report report.xml --report-format junit
check "report: JUnit suites per model" test "$(grep -c '<testsuite ' report.xml)" = 3
check "report: JUnit failure per node left" grep -q '<failure type="no-standard-form" message="aten::linalg_svd has no standard ONNX equivalent' report.xml
check "report: JUnit totals" grep -q '<testsuites name="onnx-remap check" tests="6" failures="1" errors="0"' report.xml
expect "report: unwritable report file" 6 "report not written" -- check zoo2 --report "$WORK/no/such/dir/r.json"

# --explain, -q, -v.
expect "explain: every candidate and why" 1 "\[aten-linalg-svd\] no-standard-form: no standard ONNX form" -- scan zoo/svd.onnx --explain /ATen
expect "explain: applied candidate" 0 "\[aten-asinh\] .*asinh.textproto:[0-9]+:[0-9]+: applied" -- rewrite zoo2/asinh.onnx --dry-run --explain /ATen
expect "explain: unknown node" 2 "--explain nope: no unmapped node has that name" -- scan zoo/svd.onnx --explain nope
check "-q prints nothing on success" test -z "$("$BIN" rewrite zoo2/asinh.onnx -o q.onnx -q 2>&1)"
expect "-v lists every node" 0 "rewritten /ATen \(org.pytorch.aten::ATen asinh\) -> Asinh \[aten-asinh\]" -- rewrite zoo2/asinh.onnx -o v.onnx -v

# Colour only on a terminal, never with NO_COLOR; progress on a terminal.
# (script needs a pseudo-terminal: a chroot or container without /dev/pts has none.)
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  # A terminal that takes colour, whatever the caller's TERM and NO_COLOR
  # (an editor's shell sets TERM=dumb): each check below changes one thing.
  tty_run() { env -u NO_COLOR TERM=xterm script -qec "$*" /dev/null; }
  check "colour on a terminal" grep -q $'\x1b\[32mok' <(tty_run "$BIN" check zoo2/asinh.onnx)
  check "no colour with NO_COLOR" bash -c "! grep -q $'\x1b' <(NO_COLOR=1 TERM=xterm script -qec '$BIN check zoo2/asinh.onnx' /dev/null)"
  check "no colour on a dumb terminal" bash -c "! grep -q $'\x1b' <(env -u NO_COLOR TERM=dumb script -qec '$BIN check zoo2/asinh.onnx' /dev/null)"
  check "no colour in a pipe" bash -c "! '$BIN' check zoo2/asinh.onnx | grep -q $'\x1b'"
  check "progress on a terminal" grep -q "ETA" <(tty_run "$BIN" rewrite zoo -o out8)
else
  echo "SKIP colour and progress tests: no pseudo-terminal ('script' from util-linux missing, or no /dev/pts)"
fi

# --config pins a job's options; --version.
printf '[scan]\ntarget = "onnxruntime"\n' > ci.toml
"$BIN" rewrite "$FIX/corpus/inverse_op13/model.onnx" -o inv.onnx --target onnxruntime -q
expect "--config: options from a file" 0 "target onnxruntime, 0 unmapped nodes" -- --config ci.toml scan inv.onnx
mkdir -p ci/rules && cp "$SRC/examples/argwhere.textproto" ci/rules/
printf '[check]\nopset = 13\nrules = ["ci/rules"]\nno-builtin-rules = true\n' > ci2.toml
expect "--config: list and flag options (docs/cli.md's example)" 0 "argwhere_op13/model.onnx: ok \(1 to rewrite\)" -- --config ci2.toml check "$FIX/torch/argwhere_op13/model.onnx"
expect "--version names ONNX, protobuf and the allocator in use ($ALLOCATOR)" 0 \
  "^onnx-remap [0-9.]+ \(ONNX 1\.[0-9.]+, protobuf [0-9.]+\); allocator: $ALLOCATOR( [0-9.]+)?$" -- --version

# mimalloc's settings (src/cli/allocator.cc). With MIMALLOC_VERBOSE it prints
# its options when it starts, before main: they show the tool's values only
# if the tool set them before that. A user's variable wins over each.
if [[ $ALLOCATOR == mimalloc ]]; then
  mi_options() { env MIMALLOC_VERBOSE=1 "$@" "$BIN" --version 2>&1 | grep -Eo "option '(large_os_pages|eager_commit_delay)': [0-9]+" | tr '\n' ' '; }
  check "mimalloc: huge pages and eager commit, set before it starts" \
    test "$(mi_options)" = "option 'large_os_pages': 1 option 'eager_commit_delay': 0 "
  check "mimalloc: MIMALLOC_LARGE_OS_PAGES and MIMALLOC_EAGER_COMMIT_DELAY decide when set" \
    test "$(mi_options MIMALLOC_LARGE_OS_PAGES=0 MIMALLOC_EAGER_COMMIT_DELAY=1)" = "option 'large_os_pages': 0 option 'eager_commit_delay': 1 "
fi

finish
