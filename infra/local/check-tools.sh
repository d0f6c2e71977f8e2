#!/usr/bin/env bash
# Checks the tools the test suite uses. Under CI=true a missing tool fails
# the run; elsewhere it is reported and the dependent tests skip.
set -uo pipefail
missing=()
check() { command -v "$1" >/dev/null 2>&1 || missing+=("$1 ($2)"); }
check go "Go toolchain"
check ffmpeg "apt-get install ffmpeg"
check java "apt-get install default-jre-headless (DynamoDB Local)"
check npm "apt-get install npm (fetches DynamoDB Local)"
check chromium "apt-get install chromium (renders the license page)"
[ -d /usr/share/games/wesnoth/1.16/data/core/music ] || missing+=("wesnoth music (apt-get install wesnoth-1.16-music)")
if ((${#missing[@]})); then
  printf 'missing tool: %s\n' "${missing[@]}" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
fi
exit 0
