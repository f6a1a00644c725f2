#!/usr/bin/env bash
# Installs what building, testing and demonstrating sluice needs on a
# Debian machine: Debian packages (when missing), and the pinned DuckDB
# release and playwright-core (which drives Debian's chromium in the
# browser tests) from the npm registry, each checked against its sha512
# integrity value. Safe to run again: it does nothing when everything is
# in place.
#
#   scripts/bootstrap.sh            build, test and demo dependencies
#   SLUICE_DEPS=DIR                 where DuckDB and playwright-core go (default .deps)
#   SLUICE_CACHE=DIR                where downloaded packages are kept
#                                   (default ~/.cache/sluice)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps=${SLUICE_DEPS:-$root/.deps}
cache=${SLUICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sluice}

# PostgreSQL 15 is the server the tests and `make demo` start (psql comes
# with it); jq reads `sluice serve`'s status in both; chromium is the
# browser the UI's tests drive (tests/ui)
packages=(
	build-essential pkg-config ca-certificates openssl
	libyaml-dev libjansson-dev libssl-dev libcmocka-dev
	libpq-dev libmicrohttpd-dev libcurl4-openssl-dev librdkafka-dev curl jq
	postgresql-15 chromium
)

# DuckDB 1.4 LTS: the shared library from the prebuilt Node bindings package,
# the header from the source package of the same release.
lib_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
lib_tgz="duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz"
lib_sri="sha512-jBTL/WvfwxLToFa/pVHfT6elMtltJGnc3wSuxZD9OfMltit9YUdVFS37vBFQzXMT1Z8OWjtSjMh+zPKxOwHLHA=="
hdr_pkg="duckdb@1.4.4"
hdr_tgz="duckdb-1.4.4.tgz"
hdr_sri="sha512-hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog=="
hdr_path="package/src/duckdb/src/include/duckdb.h"
stamp="1.4.4-r.4"

# playwright-core: the browser automation library alone (no browser of its
# own, no dependencies); the tests point it at /usr/bin/chromium
pw_version="1.65.2"
pw_pkg="playwright-core@$pw_version"
pw_tgz="playwright-core-$pw_version.tgz"
pw_sri="sha512-aHu9F46Mx5ha9iiB+VLZMUUtex3PBw4am9MHptc0IXaJhz++6YXsH96eEyThwCwMkIUiB8TdZcwXqnb3xKDzmA=="

say() { printf 'bootstrap: %s\n' "$*" >&2; }

install_packages() {
	local missing=()
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	# npm only fetches DuckDB; a machine may already have it from another
	# Node.js distribution, whose package conflicts with Debian's npm
	command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing Debian packages: ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
}

sri_of() { printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }

fetch() { # fetch PKG TGZ SRI: a checked tarball in the cache
	local pkg=$1 tgz=$2 sri=$3
	mkdir -p "$cache"
	if [ -f "$cache/$tgz" ] && [ "$(sri_of "$cache/$tgz")" = "$sri" ]; then
		return 0
	fi
	say "fetching $pkg from the npm registry"
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
	if [ "$(sri_of "$tmp/$tgz")" != "$sri" ]; then
		say "integrity check failed for $pkg: expected $sri"
		rm -rf "$tmp"
		exit 1
	fi
	mv "$tmp/$tgz" "$cache/$tgz"
	rm -rf "$tmp"
}

install_duckdb() {
	if [ -f "$deps/duckdb/STAMP" ] && [ "$(cat "$deps/duckdb/STAMP")" = "$stamp" ]; then
		return 0
	fi
	fetch "$lib_pkg" "$lib_tgz" "$lib_sri"
	fetch "$hdr_pkg" "$hdr_tgz" "$hdr_sri"
	rm -rf "$deps/duckdb"
	mkdir -p "$deps/duckdb/lib" "$deps/duckdb/include"
	tar -xzf "$cache/$lib_tgz" -C "$deps/duckdb/lib" --strip-components=1 package/libduckdb.so
	tar -xzf "$cache/$hdr_tgz" -C "$deps/duckdb/include" --strip-components=5 "$hdr_path"
	echo "$stamp" >"$deps/duckdb/STAMP"
	say "DuckDB $stamp installed in $deps/duckdb"
}

# Unpacked as a package folder that node resolves by path: nothing goes
# into the repository, and npm runs no install script.
install_playwright() {
	local dir="$deps/node_modules/playwright-core"
	if [ -f "$dir/STAMP" ] && [ "$(cat "$dir/STAMP")" = "$pw_version" ]; then
		return 0
	fi
	fetch "$pw_pkg" "$pw_tgz" "$pw_sri"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xzf "$cache/$pw_tgz" -C "$dir" --strip-components=1
	echo "$pw_version" >"$dir/STAMP"
	say "playwright-core $pw_version installed in $dir"
}

install_packages
install_duckdb
install_playwright
