#!/usr/bin/env bash
# End-to-end check that onnx-remap refuses (or only partly rewrites) a case as expected:
#
#   run_refusal.sh BIN CASE_DIR WORK_DIR EXPECTED_EXIT REGEX [EXTRA_REWRITE_ARGS...]
#
#   BIN rewrite CASE_DIR/model.onnx -o WORK_DIR/out.onnx [EXTRA_REWRITE_ARGS...]
#   must exit EXPECTED_EXIT, its combined stdout+stderr must match REGEX (grep -E), and the
#   case directory must be unchanged. EXTRA_REWRITE_ARGS (e.g. --opset 11, --rules FILE) are
#   passed to rewrite after the output path.
#
# Writes only into WORK_DIR (created if needed). Exit 0 on success, 1 on a failed check,
# 2 on usage errors.
set -euo pipefail

usage() {
  echo "usage: $0 BIN CASE_DIR WORK_DIR EXPECTED_EXIT REGEX [EXTRA_REWRITE_ARGS...]" >&2
  exit 2
}
[[ $# -ge 5 ]] || usage
BIN=$1 CASE_DIR=$2 WORK_DIR=$3 EXPECTED_EXIT=$4 REGEX=$5
shift 5
EXTRA=("$@")
[[ $EXPECTED_EXIT =~ ^[0-9]+$ ]] || { echo "$0: EXPECTED_EXIT must be an integer, got '$EXPECTED_EXIT'" >&2; exit 2; }
CASE=$(basename "$CASE_DIR")

fail() {
  echo "E2E FAIL [$CASE] $*" >&2
  exit 1
}
show() {
  [[ -s $1 ]] && sed 's/^/    | /' "$1" >&2
  return 0
}

[[ -x $BIN && ! -d $BIN ]] || fail "onnx-remap binary not found or not executable: $BIN (build it first)"
[[ -f $CASE_DIR/model.onnx ]] || fail "no model.onnx in case dir $CASE_DIR"

mkdir -p "$WORK_DIR" || fail "cannot create work dir $WORK_DIR"
WORK_DIR=$(cd "$WORK_DIR" && pwd)
OUT=$WORK_DIR/out.onnx
LOG=$WORK_DIR/refusal.log
rm -f "$OUT" "$LOG" "$WORK_DIR"/case.before "$WORK_DIR"/case.after

case_digest() {
  (cd "$CASE_DIR" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

case_digest >"$WORK_DIR/case.before"
echo "--- [$CASE] $BIN rewrite $CASE_DIR/model.onnx -o $OUT ${EXTRA[*]} (expect exit $EXPECTED_EXIT, /$REGEX/)"
rc=0
"$BIN" rewrite "$CASE_DIR/model.onnx" -o "$OUT" "${EXTRA[@]}" >"$LOG" 2>&1 || rc=$?
sed 's/^/    /' "$LOG"

if [[ $rc -ne $EXPECTED_EXIT ]]; then
  fail "rewrite exited $rc, expected $EXPECTED_EXIT"
fi
if ! grep -Eq -- "$REGEX" "$LOG"; then
  fail "rewrite output (stdout+stderr) does not match /$REGEX/"
fi

case_digest >"$WORK_DIR/case.after"
if ! cmp -s "$WORK_DIR/case.before" "$WORK_DIR/case.after"; then
  diff "$WORK_DIR/case.before" "$WORK_DIR/case.after" >&2 || true
  fail "rewrite modified the input case dir $CASE_DIR"
fi

echo "E2E PASS [$CASE] refused as expected (exit $rc)"
