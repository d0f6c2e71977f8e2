#!/usr/bin/env bash
# Runs a command with the local AWS stand-ins (DynamoDB Local, versitygw,
# fauxqs) started on free loopback ports, their endpoints in the environment,
# and stops them afterwards whatever happens. It prints how long each took
# to start, and at the end what the integration tier recorded in
# $LOCAL_RUN_DIR/timings.txt (the Lambda stand-in's start, PUT → completed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export LOCAL_RUN_DIR="${LOCAL_RUN_DIR:-$here/.run}"
mkdir -p "$LOCAL_RUN_DIR"
export TEST_TIMINGS_FILE="$LOCAL_RUN_DIR/timings.txt"
rm -f "$TEST_TIMINGS_FILE"
cleanup() {
  bash "$here/dynamodb.sh" stop || true
  bash "$here/versitygw.sh" stop || true
  bash "$here/fauxqs.sh" stop || true
}
trap cleanup EXIT
started=()
timed_start() {
  local t0=${EPOCHREALTIME/./} ms
  bash "$here/$1.sh" start
  ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
  started+=("$(printf '%s %d.%d s' "$1" $((ms / 1000)) $((ms % 1000 / 100)))")
}
timed_start dynamodb
timed_start versitygw
timed_start fauxqs
echo "with-stack.sh: stand-ins started (fetching included): ${started[*]/%/;}" >&2
# shellcheck disable=SC1091
. "$LOCAL_RUN_DIR/dynamodb.env"
# shellcheck disable=SC1091
. "$LOCAL_RUN_DIR/versitygw.env"
# shellcheck disable=SC1091
. "$LOCAL_RUN_DIR/fauxqs.env"
status=0
"$@" || status=$?
if [[ -s $TEST_TIMINGS_FILE ]]; then
  echo "with-stack.sh: the integration tier recorded:" >&2
  sed 's/^/  /' "$TEST_TIMINGS_FILE" >&2
fi
exit "$status"
