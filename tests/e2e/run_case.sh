#!/usr/bin/env bash
# End-to-end check of one corpus case:
#
#   run_case.sh BIN CASE_DIR WORK_DIR RTOL ATOL [TARGET_OPSET] [--target NAME]
#
#   --target NAME is passed to every rewrite and scan below (a rule for one runtime only).
#
#   (a) BIN rewrite CASE_DIR/model.onnx -o WORK_DIR/out.onnx [--opset TARGET_OPSET]  -> exit 0
#   (b) the case directory (model.onnx and data) is unchanged
#   (c) tests/ort/compare.mjs WORK_DIR/out.onnx CASE_DIR --rtol RTOL --atol ATOL      -> all PASS
#   (d) BIN scan WORK_DIR/out.onnx --json                                             -> exit 0, nothing unmapped
#   (e) BIN rewrite WORK_DIR/out.onnx -o WORK_DIR/out2.onnx [--opset ...]             -> exit 0, out2 == out byte for byte
#
# Writes only into WORK_DIR (created if needed). Exit 0 when every step passed, 1 when one
# failed, 2 on usage errors.
set -euo pipefail

usage() {
  echo "usage: $0 BIN CASE_DIR WORK_DIR RTOL ATOL [TARGET_OPSET] [--target NAME]" >&2
  exit 2
}
[[ $# -ge 5 ]] || usage
BIN=$1 CASE_DIR=$2 WORK_DIR=$3 RTOL=$4 ATOL=$5
shift 5
TARGET_OPSET='' TARGET_ARGS=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --target) [[ $# -ge 2 && -n $2 ]] || usage; TARGET_ARGS=(--target "$2"); shift 2 ;;
    *) [[ -z $TARGET_OPSET ]] || usage; TARGET_OPSET=$1; shift ;;
  esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORT_DIR=$(cd "$HERE/../ort" && pwd)
COMPARE=$ORT_DIR/compare.mjs
CASE=$(basename "$CASE_DIR")

fail() {
  echo "E2E FAIL [$CASE] $*" >&2
  exit 1
}
# print a log file indented, for failure context
show() {
  [[ -s $1 ]] && sed 's/^/    | /' "$1" >&2
  return 0
}
step() { echo "--- [$CASE] $*"; }

# --- preconditions -----------------------------------------------------------
[[ -n $TARGET_OPSET && ! $TARGET_OPSET =~ ^[0-9]+$ ]] && { echo "$0: TARGET_OPSET must be an integer, got '$TARGET_OPSET'" >&2; exit 2; }
[[ -x $BIN && ! -d $BIN ]] || fail "onnx-remap binary not found or not executable: $BIN (build it first)"
[[ -f $CASE_DIR/model.onnx ]] || fail "no model.onnx in case dir $CASE_DIR"
compgen -G "$CASE_DIR/test_data_set_*" >/dev/null || fail "no test_data_set_* in case dir $CASE_DIR"
command -v node >/dev/null 2>&1 ||
  fail "'node' is not on PATH; install Node.js (>= 18), then run: npm ci --ignore-scripts --prefix tests/ort"
[[ -d $ORT_DIR/node_modules/onnxruntime-node && -d $ORT_DIR/node_modules/protobufjs ]] ||
  fail "$ORT_DIR/node_modules is missing onnxruntime-node/protobufjs; run: npm ci --ignore-scripts --prefix tests/ort"

mkdir -p "$WORK_DIR" || fail "cannot create work dir $WORK_DIR"
WORK_DIR=$(cd "$WORK_DIR" && pwd)
OUT=$WORK_DIR/out.onnx
OUT2=$WORK_DIR/out2.onnx
# remove only what this script writes, so a stale result can never pass
rm -f "$OUT" "$OUT2" "$WORK_DIR"/rewrite.log "$WORK_DIR"/compare.log "$WORK_DIR"/scan.json \
  "$WORK_DIR"/scan.err "$WORK_DIR"/rewrite2.log "$WORK_DIR"/case.before "$WORK_DIR"/case.after

REWRITE_ARGS=()
[[ -n $TARGET_OPSET ]] && REWRITE_ARGS=(--opset "$TARGET_OPSET")
REWRITE_ARGS+=("${TARGET_ARGS[@]}")

# checksum of every file in the case dir (catches modification and stray files)
case_digest() {
  (cd "$CASE_DIR" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# --- (a) rewrite -------------------------------------------------------------
case_digest >"$WORK_DIR/case.before"
step "(a) $BIN rewrite $CASE_DIR/model.onnx -o $OUT ${REWRITE_ARGS[*]}"
rc=0
"$BIN" rewrite "$CASE_DIR/model.onnx" -o "$OUT" "${REWRITE_ARGS[@]}" >"$WORK_DIR/rewrite.log" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
  show "$WORK_DIR/rewrite.log"
  fail "(a) rewrite exited $rc, expected 0"
fi
[[ -s $OUT ]] || { show "$WORK_DIR/rewrite.log"; fail "(a) rewrite exited 0 but wrote no (or an empty) $OUT"; }

# --- (b) input untouched -----------------------------------------------------
step "(b) input case dir unchanged"
case_digest >"$WORK_DIR/case.after"
if ! cmp -s "$WORK_DIR/case.before" "$WORK_DIR/case.after"; then
  diff "$WORK_DIR/case.before" "$WORK_DIR/case.after" >&2 || true
  fail "(b) rewrite modified the input case dir $CASE_DIR"
fi

# --- (c) numerics --------------------------------------------------------------
step "(c) node compare.mjs out.onnx $CASE_DIR --rtol $RTOL --atol $ATOL"
rc=0
node "$COMPARE" "$OUT" "$CASE_DIR" --rtol "$RTOL" --atol "$ATOL" >"$WORK_DIR/compare.log" 2>&1 || rc=$?
sed 's/^/    /' "$WORK_DIR/compare.log"
[[ $rc -eq 0 ]] || fail "(c) onnxruntime results of the rewritten model do not match the reference (compare.mjs exit $rc)"

# --- (d) nothing unmapped left -----------------------------------------------
step "(d) $BIN scan out.onnx --json ${TARGET_ARGS[*]}"
rc=0
"$BIN" scan "$OUT" --json "${TARGET_ARGS[@]}" >"$WORK_DIR/scan.json" 2>"$WORK_DIR/scan.err" || rc=$?
if [[ $rc -ne 0 ]]; then
  show "$WORK_DIR/scan.json"
  show "$WORK_DIR/scan.err"
  fail "(d) scan of the rewritten model exited $rc, expected 0"
fi
rc=0
node -e '
  const fs = require("fs");
  const text = fs.readFileSync(process.argv[1], "utf8");
  let j;
  try { j = JSON.parse(text); } catch (e) { console.error("scan --json output is not one JSON object: " + e.message); process.exit(1); }
  if (!j || !Array.isArray(j.models)) { console.error("scan --json: no \"models\" array"); process.exit(1); }
  if (j.models.length !== 1) { console.error("scan --json: expected 1 model entry, got " + j.models.length); process.exit(1); }
  const m = j.models[0];
  if (!Array.isArray(m.rewritten) || !Array.isArray(m.remaining)) { console.error("scan --json: models[0].rewritten/remaining are not arrays"); process.exit(1); }
  const u = [...m.rewritten, ...m.remaining];
  if (u.length) {
    for (const e of u) console.error("  still unmapped: " + JSON.stringify(e));
    process.exit(1);
  }
' "$WORK_DIR/scan.json" || rc=$?
if [[ $rc -ne 0 ]]; then
  show "$WORK_DIR/scan.json"
  fail "(d) scan reports unmapped nodes (or bad JSON) in the rewritten model"
fi

# --- (e) idempotence ---------------------------------------------------------
step "(e) $BIN rewrite out.onnx -o out2.onnx ${REWRITE_ARGS[*]} (idempotence)"
rc=0
"$BIN" rewrite "$OUT" -o "$OUT2" "${REWRITE_ARGS[@]}" >"$WORK_DIR/rewrite2.log" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
  show "$WORK_DIR/rewrite2.log"
  fail "(e) second rewrite exited $rc, expected 0"
fi
[[ -f $OUT2 ]] || fail "(e) second rewrite exited 0 but wrote no $OUT2"
cmp "$OUT" "$OUT2" >&2 || fail "(e) rewrite is not idempotent: out2.onnx differs from out.onnx"

echo "E2E PASS [$CASE]"
