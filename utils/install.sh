#!/bin/bash
# Installs what the build staged (build/prefix) into PREFIX, or removes it.
#
#   install.sh install STAGE PREFIX
#   install.sh uninstall PREFIX
#
# Nothing is built again. The staged binaries carry build-tree RUNPATHs
# (PAPI's own build adds its source tree); the installed copies get
# $ORIGIN-relative ones, so the tree works wherever it lands and from no
# other path. papi.pc and counterlab.pc carry the rpath in Libs, so a program
# built with `pkg-config --cflags --libs papi counterlab` runs as it is.
# The installed files are listed in PREFIX/share/counterlab/install-manifest.
set -uo pipefail

die() { echo "install: $*" >&2; exit 1; }

is_elf() { [ "$(head -c 4 "$1" 2> /dev/null)" = $'\x7fELF' ]; }

install_tree() {
	local stage=$1 prefix=$2
	[ -f "$stage/lib/libpapi.so" ] && [ -f "$stage/lib/libcounterlab.so" ] ||
		die "nothing built in $stage: run 'make' first"
	command -v patchelf > /dev/null || die "patchelf is missing: run 'make deps' as root"
	case "$prefix" in
	/*) ;;
	*) die "PREFIX must be an absolute path (got '$prefix')" ;;
	esac
	mkdir -p "$prefix" 2> /dev/null && [ -w "$prefix" ] ||
		die "cannot write to $prefix: run as a user who may (root for /usr/local or /opt)"
	local manifest=$prefix/share/counterlab/install-manifest
	local list
	list=$(cd "$stage" && find bin lib include share -type f -o -type l | sort) ||
		die "cannot list $stage"
	local f
	while IFS= read -r f; do
		[ "$f" = share/counterlab/install-manifest ] && continue
		mkdir -p "$prefix/$(dirname "$f")" || die "cannot create $prefix/$(dirname "$f")"
		# a new file, as install(1) makes: a program running from an earlier
		# installation keeps the pages it has mapped (a copy in place would
		# kill it with SIGBUS)
		rm -f "$prefix/$f" && cp -P "$stage/$f" "$prefix/$f" || die "cannot copy $f to $prefix"
		[ -L "$prefix/$f" ] && continue
		if is_elf "$prefix/$f"; then
			case "$f" in
			bin/*) patchelf --set-rpath '$ORIGIN/../lib' "$prefix/$f" ;;
			lib/*) patchelf --set-rpath '$ORIGIN' "$prefix/$f" ;;
			esac || die "patchelf failed on $prefix/$f"
		fi
	done <<< "$list"
	for pc in "$prefix"/lib/pkgconfig/papi*.pc; do
		[ -f "$pc" ] || continue
		sed -i -e "s|^prefix=.*|prefix=$prefix|" \
			-e 's|^Libs: -L${libdir} -lpapi$|Libs: -L${libdir} -Wl,-rpath,${libdir} -lpapi|' "$pc"
	done
	cat > "$prefix/lib/pkgconfig/counterlab.pc" << EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
datadir=\${prefix}/share/counterlab

Name: counterlab
Description: Hardware-counter components over real and simulated machines (libcounterlab)
Version: 0.1
Requires: papi
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lcounterlab
Cflags: -I\${includedir}
EOF
	{
		echo "$list" | grep -vx share/counterlab/install-manifest
		echo lib/pkgconfig/counterlab.pc
		echo share/counterlab/install-manifest
	} | sort -u > "$manifest" || die "cannot write $manifest"
	echo "install: $(wc -l < "$manifest") files in $prefix"
	echo "install: build programs with: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs papi counterlab"
}

uninstall_tree() {
	local prefix=$1 manifest=$1/share/counterlab/install-manifest f
	[ -f "$manifest" ] || die "no counterlab installed in $prefix (no $manifest)"
	local files
	files=$(cat "$manifest") || die "cannot read $manifest"
	while IFS= read -r f; do
		case "$f" in
		"" | /* | *..*) die "malformed line '$f' in $manifest: nothing removed" ;;
		esac
	done <<< "$files"
	while IFS= read -r f; do
		rm -f "$prefix/$f" || die "cannot remove $prefix/$f"
	done <<< "$files"
	# the directories that held them, and PREFIX itself, if now empty
	while IFS= read -r f; do
		[ "$f" = "${f%/*}" ] && continue
		(cd "$prefix" && rmdir -p --ignore-fail-on-non-empty "${f%/*}" 2> /dev/null)
	done < <(sort -ru <<< "$files")
	rmdir "$prefix" 2> /dev/null
	echo "uninstall: removed counterlab from $prefix"
}

case "${1:-}" in
install) install_tree "${2:?stage}" "${3:?prefix}" ;;
uninstall) uninstall_tree "${2:?prefix}" ;;
*) die "usage: install.sh install STAGE PREFIX | uninstall PREFIX" ;;
esac
