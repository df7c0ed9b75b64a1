#!/bin/bash
# The Debian packages counterlab builds with (the Makefile's DEB_PACKAGES).
#
#   deps.sh check PKG...     say which are missing and how to get them
#   deps.sh install PKG...   as root: install the missing ones and make sure
#                            apt has the deb-src entry that PAPI's source
#                            comes from (NO_DEB_SRC=1 skips that: PAPI_SRC given)
set -uo pipefail
mode=${1:-}
shift || true

missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' || missing+=("$p")
done

hint() {
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: as root, 'make deps' installs them (and adds the deb-src entry PAPI's source needs)," >&2
	echo "deps: or run this line as root:" >&2
	echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
}

case "$mode" in
check)
	if ! command -v dpkg-query > /dev/null; then
		echo "deps: dpkg-query not found: counterlab's setup needs Debian (12, bookworm)" >&2
		exit 1
	fi
	[ ${#missing[@]} = 0 ] && exit 0
	hint
	exit 1
	;;
install)
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "$(id -u)" != 0 ]; then
			hint
			exit 1
		fi
		echo "deps: installing ${missing[*]}"
		if ! apt-get update -qq; then
			echo "deps: apt-get update failed: check the network and /etc/apt's sources, then run 'make deps' again" >&2
			exit 1
		fi
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; then
			echo "deps: apt-get install failed (output above); fix what it names, then run 'make deps' again" >&2
			exit 1
		fi
	else
		echo "deps: all Debian packages present"
	fi
	[ -n "${NO_DEB_SRC:-}" ] && exit 0
	exec bash "$(dirname "$0")/papi-source.sh" --deb-src
	;;
*)
	echo "usage: deps.sh check|install PACKAGE..." >&2
	exit 2
	;;
esac
