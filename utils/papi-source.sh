#!/bin/bash
# Brings PAPI 7.0's source in through Debian's source package: DIR/tree
# points at the unpacked tree (Debian's patches applied).
# usage: utils/papi-source.sh DIR
set -euo pipefail
dir=${1:?usage: papi-source.sh DIR}
mkdir -p "$dir"
cd "$dir"

has_deb_src() {
	grep -Eqs '^deb-src |^Types:.*deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null
}

add_deb_src() {
	. /etc/os-release
	local uri
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | head -1 | awk '{print $2}')
	uri=${uri:-http://deb.debian.org/debian}
	echo "papi-source: adding a deb-src entry for $VERSION_CODENAME ($uri)"
	cat > /etc/apt/sources.list.d/counterlab-deb-src.sources <<EOT
Types: deb-src
URIs: $uri
Suites: $VERSION_CODENAME
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	apt-get update -qq
}

if ! compgen -G 'papi-7.0*/src/configure' >/dev/null; then
	if ! has_deb_src; then
		if [ "$(id -u)" != 0 ]; then
			echo "papi-source: no deb-src entry in /etc/apt; as root, add one for your suite" >&2
			echo "  (or run 'make deps' as root, or pass PAPI_SRC=/path/to/papi-7.0)" >&2
			exit 1
		fi
		add_deb_src
	fi
	apt-get source --only-source papi > apt-source.log 2>&1 || {
		cat apt-source.log >&2
		echo "papi-source: apt-get source papi failed (try 'apt-get update' as root)" >&2
		exit 1
	}
fi
tree=$(compgen -G 'papi-7.0*/src/configure' | head -1)
[ -n "$tree" ] || { echo "papi-source: no PAPI 7.0 in Debian's source package here" >&2; exit 1; }
ln -sfn "${tree%/src/configure}" tree
echo "papi-source: $(readlink tree)"
