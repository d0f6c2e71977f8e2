#!/usr/bin/env bash
# Runs a command with the local AWS stand-ins (DynamoDB Local, versitygw)
# started on free loopback ports, their endpoints in the environment, and
# stops them afterwards whatever happens.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export LOCAL_RUN_DIR="${LOCAL_RUN_DIR:-$here/.run}"
mkdir -p "$LOCAL_RUN_DIR"
cleanup() {
  bash "$here/dynamodb.sh" stop || true
  bash "$here/versitygw.sh" stop || true
}
trap cleanup EXIT
bash "$here/dynamodb.sh" start
bash "$here/versitygw.sh" start
# shellcheck disable=SC1091
. "$LOCAL_RUN_DIR/dynamodb.env"
# shellcheck disable=SC1091
. "$LOCAL_RUN_DIR/versitygw.env"
"$@"
