#!/bin/bash
# The Debian packages counterlab builds with (the Makefile's DEB_PACKAGES),
# and the deb-src entry PAPI's source comes from.
#
#   deps.sh check PKG...     say which packages are missing and how to get them
#   deps.sh install PKG...   as root: install what is missing and add the
#                            deb-src entry; otherwise print the one line to
#                            run as root that does both
# NO_DEB_SRC=1 leaves the deb-src entry out (PAPI_SRC was given).
set -uo pipefail
here=$(dirname "$0")
mode=${1:-}
shift || true

if ! command -v dpkg-query > /dev/null; then
	echo "deps: dpkg-query not found: counterlab's setup needs Debian (12, bookworm)" >&2
	exit 1
fi
missing=()
for p in "$@"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2> /dev/null) == *"ok installed" ]] || missing+=("$p")
done
install_cmd="apt-get update && apt-get install -y ${missing[*]}"

case "$mode" in
check)
	[ ${#missing[@]} = 0 ] && exit 0
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: as root, 'make deps' installs them; or run this line as root:" >&2
	echo "  $install_cmd" >&2
	exit 1
	;;
install)
	if [ "$(id -u)" != 0 ]; then
		debsrc=
		if [ -z "${NO_DEB_SRC:-}" ]; then
			debsrc=$(bash "$here/papi-source.sh" --deb-src-command) || exit 1
		fi
		if [ ${#missing[@]} = 0 ] && [ -z "$debsrc" ]; then
			echo "deps: all Debian packages present${NO_DEB_SRC:+ (PAPI_SRC given: no deb-src entry needed)}"
			exit 0
		fi
		[ ${#missing[@]} = 0 ] || echo "deps: missing Debian packages: ${missing[*]}" >&2
		[ -z "$debsrc" ] || echo "deps: apt has no deb-src entry, which 'apt-get source papi' needs" >&2
		line=$debsrc
		# the deb-src line ends with apt-get update already
		[ ${#missing[@]} = 0 ] || line=${debsrc:+$debsrc && apt-get install -y ${missing[*]}}
		[ -n "$line" ] || line=$install_cmd
		echo "deps: you are not root; as root, run 'make deps' here, or run this line as root:" >&2
		echo "  $line" >&2
		exit 1
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		echo "deps: installing ${missing[*]}"
		if ! apt-get update -qq; then
			echo "deps: apt-get update failed: check the network and the sources in /etc/apt, then run 'make deps' again" >&2
			exit 1
		fi
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; then
			echo "deps: apt-get install failed (output above): fix what it names, then run 'make deps' again" >&2
			exit 1
		fi
	else
		echo "deps: all Debian packages present"
	fi
	[ -n "${NO_DEB_SRC:-}" ] && exit 0
	exec bash "$here/papi-source.sh" --deb-src
	;;
*)
	echo "usage: deps.sh check|install PACKAGE..." >&2
	exit 2
	;;
esac
