#!/bin/bash
# QEMU's plugin API header (include/qemu/qemu-plugin.h) from Debian's qemu
# source package, for counterlab's emulator plugin; nothing of QEMU is kept
# in the repository.
#
#   qemu-header.sh DIR   leaves DIR/qemu-plugin.h (the source package is
#                        downloaded into DIR and only the header unpacked)
#
# It needs the same deb-src entry as PAPI's source ('make deps' adds it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() {
	echo "qemu-header: $1" >&2
	shift
	for line in "$@"; do echo "  $line" >&2; done
	exit 1
}
[ $# = 1 ] || die "usage: qemu-header.sh DIR"
dir=$1
mkdir -p "$dir" && cd "$dir" || die "cannot create $dir" "check that the build directory is writable"
[ -s qemu-plugin.h ] && exit 0
command -v apt-get > /dev/null || die "apt-get is not installed: this is not a Debian system" \
	"counterlab's emulator plugin builds against Debian 12's qemu source package"
if ! compgen -G 'qemu_*.orig.tar.*' > /dev/null; then
	debsrc=$(bash "$here/papi-source.sh" --deb-src-command) || exit 1
	[ -z "$debsrc" ] || die "apt has no deb-src entry, which 'apt-get source qemu' needs" \
		"as root, run 'make deps' (it adds one), or this line:" "$debsrc"
	echo "qemu-header: apt-get source --download-only qemu (into $dir)"
	if ! apt-get source --download-only --only-source qemu > apt-source.log 2>&1; then
		tail -5 apt-source.log >&2
		die "apt-get source qemu failed (log above, in full in $dir/apt-source.log)" \
			"check the network; as root, 'apt-get update' refreshes the package lists"
	fi
fi
orig=$(compgen -G 'qemu_*.orig.tar.*' | head -1)
tar -xf "$orig" --wildcards --no-anchored --strip-components=3 '*/include/qemu/qemu-plugin.h' ||
	die "$orig holds no include/qemu/qemu-plugin.h" "remove $dir and make again"
[ -s qemu-plugin.h ] || die "$orig holds no include/qemu/qemu-plugin.h" "remove $dir and make again"
echo "qemu-header: $dir/qemu-plugin.h from $orig"
