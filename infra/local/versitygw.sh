#!/usr/bin/env bash
# Starts or stops versitygw, the S3-compatible stand-in for the integration tier.
#
#   infra/local/versitygw.sh start   install if needed, start on a free port, write the env file
#   infra/local/versitygw.sh stop    stop it and remove its data
#
# After start, `. "$LOCAL_RUN_DIR/versitygw.env"` exports TEST_S3_ENDPOINT,
# TEST_S3_ACCESS_KEY, TEST_S3_SECRET_KEY and TEST_S3_SERVER=versitygw. LOCAL_RUN_DIR defaults to
# infra/local/.run; the binary is cached under ${MUSICCATALOG_CACHE:-~/.cache/musiccatalog}.
set -euo pipefail

readonly VERSITYGW_VERSION=v1.8.0
readonly READY_TIMEOUT_SECONDS=30

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache_dir=${MUSICCATALOG_CACHE:-$HOME/.cache/musiccatalog}
run_dir=${LOCAL_RUN_DIR:-$repo_root/infra/local/.run}
bin=$cache_dir/bin/versitygw
pid_file=$run_dir/versitygw.pid
env_file=$run_dir/versitygw.env
data_file=$run_dir/versitygw.datadir
log_file=$run_dir/versitygw.log

die() {
	echo "versitygw.sh: $*" >&2
	exit 1
}

# running succeeds when the PID file names a live versitygw process; a PID
# alone could have been reused by something else since.
running() {
	[[ -f $pid_file ]] || return 1
	local pid
	pid=$(<"$pid_file")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q versitygw
}

install_binary() {
	[[ -x $bin ]] && return 0
	command -v go >/dev/null || die "go is not on PATH; it is needed to install versitygw"
	echo "versitygw.sh: installing versitygw $VERSITYGW_VERSION into $cache_dir/bin (a large build, minutes on a small machine)" >&2
	mkdir -p "$cache_dir/bin"
	# Outside the repository so our go.mod plays no part in the build.
	(cd / && GOBIN=$cache_dir/bin go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION") ||
		die "go install of versitygw $VERSITYGW_VERSION failed"
}

# free_port picks a port nothing listens on. Another process may take it
# before versitygw binds; start() then sees versitygw exit and tries again.
free_port() {
	local used port
	used=$(ss -Htln 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
	for _ in $(seq 100); do
		port=$((20000 + RANDOM % 40000))
		grep -qx "$port" <<<"$used" || {
			echo "$port"
			return 0
		}
	done
	die "no free port found"
}

random_hex() {
	od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'
}

# wait_ready succeeds once the server answers HTTP at all (an anonymous request
# gets an S3 error document, which is enough to know it is serving).
wait_ready() {
	local pid=$1 endpoint=$2 deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
	while ((SECONDS < deadline)); do
		kill -0 "$pid" 2>/dev/null || return 2
		if [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$endpoint/" || true) != 000 ]]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

remove_state() {
	if [[ -f $data_file ]]; then
		local dir
		dir=$(<"$data_file")
		[[ -n $dir && -d $dir ]] && rm -rf -- "$dir"
	fi
	rm -f -- "$pid_file" "$env_file" "$data_file" "$log_file"
	rmdir -- "$run_dir" 2>/dev/null || true
}

start() {
	if running && [[ -f $env_file ]]; then
		echo "versitygw.sh: already running (PID $(<"$pid_file")); env in $env_file" >&2
		return 0
	fi
	stop_quietly
	install_binary
	mkdir -p "$run_dir"

	local data_dir access secret port endpoint pid status
	data_dir=$(mktemp -d "${TMPDIR:-/tmp}/versitygw.XXXXXX")
	echo "$data_dir" >"$data_file"
	access=local$(random_hex 8)
	secret=$(random_hex 20)

	for _ in 1 2 3; do
		port=$(free_port)
		endpoint=http://127.0.0.1:$port
		ROOT_ACCESS_KEY=$access ROOT_SECRET_KEY=$secret \
			setsid "$bin" --port "127.0.0.1:$port" posix "$data_dir" >"$log_file" 2>&1 </dev/null &
		pid=$!
		echo "$pid" >"$pid_file"
		status=0
		wait_ready "$pid" "$endpoint" || status=$?
		case $status in
		0)
			cat >"$env_file" <<EOF
export TEST_S3_ENDPOINT=$endpoint
export TEST_S3_ACCESS_KEY=$access
export TEST_S3_SECRET_KEY=$secret
export TEST_S3_SERVER=versitygw
EOF
			echo "versitygw.sh: versitygw (PID $pid) answers at $endpoint; env in $env_file" >&2
			return 0
			;;
		2) ;; # exited, most likely the port was taken meanwhile: try another
		*)
			kill "$pid" 2>/dev/null || true
			tail -n 20 "$log_file" >&2 || true
			remove_state
			die "versitygw did not answer at $endpoint within ${READY_TIMEOUT_SECONDS}s"
			;;
		esac
	done
	tail -n 20 "$log_file" >&2 || true
	remove_state
	die "versitygw exited right after starting, three times"
}

stop_quietly() {
	if running; then
		local pid
		pid=$(<"$pid_file")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
	fi
	remove_state
}

stop() {
	local was_running=false
	running && was_running=true
	stop_quietly
	if $was_running; then
		echo "versitygw.sh: stopped" >&2
	else
		echo "versitygw.sh: was not running" >&2
	fi
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
