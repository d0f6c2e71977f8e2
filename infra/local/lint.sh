#!/usr/bin/env bash
# Offline checks of what `sam deploy` would send to CloudFormation:
#   - cfn-lint (Python; it runs the SAM translator) on template.yaml: zero
#     errors and zero warnings (a warning that is right to ignore is
#     ignored on its resource in the template, with the reason);
#   - asl-validator (npm, pinned, installed once into the cache) on every
#     state machine under infra/statemachines.
# Under CI=true a missing tool fails; elsewhere it is skipped with a note.
set -euo pipefail

readonly ASL_VALIDATOR="asl-validator@4.0.0"

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache="${MUSICCATALOG_CACHE:-$HOME/.cache/musiccatalog}/${ASL_VALIDATOR/@/-}"

missing() {
	if [[ "${CI:-}" == "true" ]]; then
		echo "lint: $1 is required under CI=true ($2)" >&2
		exit 1
	fi
	echo "lint: SKIPPED $1 checks: $1 not found ($2)" >&2
}

if command -v cfn-lint >/dev/null; then
	echo "lint: $(cfn-lint --version) template.yaml" >&2
	cfn-lint "$repo_root/template.yaml"
else
	missing cfn-lint "the Python package cfn-lint, which bundles the SAM translator"
fi

if command -v npm >/dev/null; then
	if [[ ! -x "$cache/node_modules/.bin/asl-validator" ]]; then
		echo "lint: installing $ASL_VALIDATOR into $cache" >&2
		npm install --silent --no-audit --no-fund --prefix "$cache" "$ASL_VALIDATOR" >/dev/null
	fi
	for f in "$repo_root"/infra/statemachines/*.asl.json; do
		"$cache/node_modules/.bin/asl-validator" --json-path "$f"
	done
else
	missing asl-validator "npm, which installs $ASL_VALIDATOR"
fi
