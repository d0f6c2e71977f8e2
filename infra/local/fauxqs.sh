#!/usr/bin/env bash
# Starts or stops fauxqs, the SQS stand-in of the integration tier (npm,
# pinned by node-tools/package-lock.json, run on Node >= 22; see node-tools.sh).
#
#   infra/local/fauxqs.sh start   fetch if needed, start on a free port, wait until it answers
#   infra/local/fauxqs.sh stop
#
# start writes $LOCAL_RUN_DIR/fauxqs.env: TEST_SQS_ENDPOINT, and TEST_NODE /
# TEST_NODE_TOOLS (the Node and npm tools the Step Functions runner uses too).
set -euo pipefail

readonly READY_TIMEOUT_S=60

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run_dir=${LOCAL_RUN_DIR:-$here/.run}
pid_file=$run_dir/fauxqs.pid
env_file=$run_dir/fauxqs.env
log_file=$run_dir/fauxqs.log

die() {
	echo "fauxqs.sh: $*" >&2
	exit 1
}

# ours: the PID file names a live fauxqs (a reused PID is someone else's).
ours() {
	local pid=$1
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'fauxqs/dist/cli.js'
}

# free_port picks a port nothing listens on; start retries when fauxqs
# loses a race for it.
free_port() {
	local port
	for _ in $(seq 100); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	die "no free port found"
}

start() {
	if [[ -f $pid_file && -f $env_file ]] && ours "$(<"$pid_file")"; then
		echo "fauxqs.sh: already running (pid $(<"$pid_file")); see $env_file" >&2
		return
	fi
	rm -f "$pid_file" "$env_file"
	mkdir -p "$run_dir"
	local tools
	tools=$(bash "$here/node-tools.sh") || die "could not fetch the npm tools"
	eval "$tools"
	local port url pid
	for _ in 1 2 3; do
		port=$(free_port)
		url=http://127.0.0.1:$port
		FAUXQS_PORT=$port FAUXQS_HOST=127.0.0.1 FAUXQS_LOGGER=false \
			setsid "$TEST_NODE" "$TEST_NODE_TOOLS/fauxqs/dist/cli.js" </dev/null >"$log_file" 2>&1 &
		pid=$!
		local deadline=$((SECONDS + READY_TIMEOUT_S))
		while kill -0 "$pid" 2>/dev/null; do
			if [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' "$url/" || true) != 000 ]]; then
				echo "$pid" >"$pid_file"
				printf '%s\nexport TEST_SQS_ENDPOINT=%s\n' "$tools" "$url" >"$env_file"
				echo "fauxqs.sh: fauxqs on $url (pid $pid)" >&2
				return
			fi
			if ((SECONDS >= deadline)); then
				kill "$pid" 2>/dev/null || true
				tail -n 20 "$log_file" >&2 || true
				die "fauxqs did not answer on $url within ${READY_TIMEOUT_S}s"
			fi
			sleep 0.2
		done
		# exited: most likely the port was taken meanwhile; try another
	done
	tail -n 20 "$log_file" >&2 || true
	die "fauxqs exited right after starting, three times (log: $log_file)"
}

stop() {
	if [[ -f $pid_file ]] && ours "$(<"$pid_file")"; then
		local pid
		pid=$(<"$pid_file")
		kill "$pid"
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
		echo "fauxqs.sh: stopped (pid $pid)" >&2
	fi
	rm -f "$pid_file" "$env_file" "$log_file"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
