#!/usr/bin/env bash
# Starts and stops DynamoDB Local (the real emulator from AWS) for the
# integration tier, without Docker: the jar comes from the npm package
# amplify-dynamodb-simulator, which ships it.
#
#   infra/local/dynamodb.sh start   # fetch if needed, start, wait until it answers
#   infra/local/dynamodb.sh stop
#
# start writes $LOCAL_RUN_DIR/dynamodb.pid and $LOCAL_RUN_DIR/dynamodb.env
# (export TEST_DYNAMODB_ENDPOINT=...); source the latter before go test.
set -euo pipefail

readonly SIMULATOR_PKG="amplify-dynamodb-simulator@2.9.30"
readonly READY_TIMEOUT_S=60

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache_dir="${MUSICCATALOG_CACHE:-$HOME/.cache/musiccatalog}/dynamodb-local"
run_dir="${LOCAL_RUN_DIR:-$repo_root/infra/local/.run}"
pid_file="$run_dir/dynamodb.pid"
env_file="$run_dir/dynamodb.env"
log_file="$run_dir/dynamodb.log"

die() {
	echo "dynamodb.sh: $*" >&2
	exit 1
}

# fetch unpacks the jar and its native libraries into the cache once; the
# rename at the end keeps a half-finished download from looking complete.
fetch() {
	[[ -f "$cache_dir/DynamoDBLocal.jar" && -d "$cache_dir/DynamoDBLocal_lib" ]] && return
	command -v npm >/dev/null || die "npm not found: it is needed to fetch $SIMULATOR_PKG"
	mkdir -p "$(dirname "$cache_dir")"
	local tmp
	tmp=$(mktemp -d "$(dirname "$cache_dir")/.dynamodb-local.XXXXXX")
	echo "dynamodb.sh: fetching $SIMULATOR_PKG into $cache_dir" >&2
	if ! (cd "$tmp" && npm pack --silent "$SIMULATOR_PKG" >/dev/null); then
		rm -rf "$tmp"
		die "npm pack $SIMULATOR_PKG failed"
	fi
	if ! tar -xzf "$tmp"/amplify-dynamodb-simulator-*.tgz -C "$tmp" \
		package/emulator/DynamoDBLocal.jar package/emulator/DynamoDBLocal_lib; then
		rm -rf "$tmp"
		die "the package has no emulator/DynamoDBLocal.jar"
	fi
	rm -rf "$cache_dir"
	mv "$tmp/package/emulator" "$cache_dir"
	rm -rf "$tmp"
}

check_java() {
	command -v java >/dev/null && java -version >/dev/null 2>&1 ||
		die "java not found: install a JRE, e.g. apt-get install -y default-jre-headless"
}

free_port() {
	if command -v python3 >/dev/null; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
		return
	fi
	local port
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	die "no free port found"
}

# ours reports whether pid is a live DynamoDB Local, so a stale PID file
# whose number was reused never makes us signal a stranger.
ours() {
	local pid=$1
	[[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q DynamoDBLocal.jar
}

# answers reports whether the server speaks HTTP yet (it replies 400 to a bare GET).
answers() {
	local url=$1
	if command -v curl >/dev/null; then
		local code
		code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$url/") || return 1
		[[ "$code" != "000" ]]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/${url##*:}") 2>/dev/null
	fi
}

start() {
	if [[ -f "$pid_file" && -f "$env_file" ]] && ours "$(cat "$pid_file")"; then
		echo "dynamodb.sh: already running (pid $(cat "$pid_file")); see $env_file" >&2
		return
	fi
	rm -f "$pid_file" "$env_file"
	check_java
	fetch
	mkdir -p "$run_dir"

	local port url pid
	port=$(free_port)
	url="http://127.0.0.1:$port"
	# setsid detaches the server from the caller's process group, so it
	# outlives the shell that started it until stop is called.
	(cd "$cache_dir" && exec setsid java -Xmx256m -XX:+UseSerialGC \
		-Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
		-inMemory -disableTelemetry -port "$port" </dev/null >"$log_file" 2>&1) &
	pid=$!

	local deadline=$((SECONDS + READY_TIMEOUT_S))
	until answers "$url"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$log_file" >&2 || true
			die "DynamoDB Local exited during startup (log: $log_file)"
		fi
		if ((SECONDS >= deadline)); then
			kill "$pid" 2>/dev/null || true
			tail -n 20 "$log_file" >&2 || true
			die "DynamoDB Local did not answer on $url within ${READY_TIMEOUT_S}s (log: $log_file)"
		fi
		sleep 0.2
	done

	echo "$pid" >"$pid_file"
	echo "export TEST_DYNAMODB_ENDPOINT=$url" >"$env_file"
	echo "dynamodb.sh: DynamoDB Local on $url (pid $pid)" >&2
}

stop() {
	if [[ ! -f "$pid_file" ]]; then
		echo "dynamodb.sh: not running" >&2
		rm -f "$env_file"
		return
	fi
	local pid
	pid=$(cat "$pid_file")
	if ours "$pid"; then
		kill "$pid"
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid" 2>/dev/null || true
		fi
		echo "dynamodb.sh: stopped (pid $pid)" >&2
	fi
	rm -f "$pid_file" "$env_file"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
