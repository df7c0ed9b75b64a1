#!/bin/bash
# PAPI 7.0's source through Debian's source package.
#
#   papi-source.sh DIR        unpack it under DIR (DIR/tree points at the tree,
#                             Debian's patches applied)
#   papi-source.sh --deb-src  make sure apt has a deb-src entry for this
#                             system's suite, adding one as root
#   papi-source.sh --deb-src-command   print the one-line root command that
#                             adds it (nothing when there is one)
#
# apt may be configured in one-line format (sources.list, *.list), in deb822
# format (*.sources), or not at all; the deb-src entry takes the mirror this
# system uses for its suite, else Debian's default. Every failure says what
# went wrong and what to do. CLAB_APT_ETC and CLAB_OS_RELEASE point the script
# at other files (tests/setup/test_setup.sh uses them).
set -uo pipefail
APT_ETC=${CLAB_APT_ETC:-/etc/apt}
OS_RELEASE=${CLAB_OS_RELEASE:-/etc/os-release}
ENTRY=$APT_ETC/sources.list.d/counterlab-deb-src.sources
DEFAULT_MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { # cause, then the fix on the following lines
	echo "papi-source: $1" >&2
	shift
	for line in "$@"; do echo "  $line" >&2; done
	exit 1
}

suite() {
	[ -r "$OS_RELEASE" ] || die "cannot read $OS_RELEASE to learn this system's Debian suite" \
		"build on Debian 12 (bookworm), or pass PAPI_SRC=/path/to/papi-7.0 to make"
	local codename
	codename=$(. "$OS_RELEASE" && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "$OS_RELEASE names no VERSION_CODENAME" \
		"build on Debian 12 (bookworm), or pass PAPI_SRC=/path/to/papi-7.0 to make"
	echo "$codename"
}

# Every apt source as "TYPE URI SUITE" lines, from both formats. Options in
# brackets and deb822 stanzas with "Enabled: no" are left out.
apt_sources() {
	local f
	shopt -s nullglob
	for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk '($1 == "deb" || $1 == "deb-src") && NF >= 3 { print $1, $2, $3 }'
	done
	for f in "$APT_ETC"/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'function flush(   t, u, s, i, j, k) {
			if (enabled != "no")
				for (i = 1; i <= nt; i++) for (j = 1; j <= nu; j++) for (k = 1; k <= ns; k++)
					print types[i], uris[j], suites[k]
			nt = nu = ns = 0; enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{ key = tolower($1); sub(/:$/, "", key); $1 = "" }
		key == "types" { nt = split($0, types, " ") }
		key == "uris" { nu = split($0, uris, " ") }
		key == "suites" { ns = split($0, suites, " ") }
		key == "enabled" { enabled = tolower($2) }
		END { flush() }' "$f"
	done
	shopt -u nullglob
}

has_deb_src() { # suite
	apt_sources | awk -v s="$1" '$1 == "deb-src" && $3 == s { found = 1 } END { exit !found }'
}

mirror() { # suite: the URI this system fetches the suite's binaries from
	local uri
	uri=$(apt_sources | awk -v s="$1" '$1 == "deb" && $3 == s { print $2; exit }')
	echo "${uri:-$DEFAULT_MIRROR}"
}

deb_src_command() { # suite
	echo "echo 'deb-src $(mirror "$1") $1 main' > $APT_ETC/sources.list.d/counterlab-deb-src.list && apt-get update"
}

ensure_deb_src() {
	local s uri
	s=$(suite) || exit 1
	if has_deb_src "$s"; then
		echo "papi-source: apt has a deb-src entry for $s"
		return 0
	fi
	uri=$(mirror "$s")
	if [ "$(id -u)" != 0 ]; then
		die "apt has no deb-src entry for $s, which 'apt-get source papi' needs" \
			"as root, run 'make deps' (it adds one), or this line:" \
			"$(deb_src_command "$s")" \
			"or pass PAPI_SRC=/path/to/papi-7.0 to make"
	fi
	command -v apt-get > /dev/null || die "apt-get is not installed: this is not a Debian system" \
		"pass PAPI_SRC=/path/to/papi-7.0 to make"
	echo "papi-source: adding a deb-src entry for $s from $uri ($ENTRY)"
	mkdir -p "$(dirname "$ENTRY")"
	{
		echo "Types: deb-src"
		echo "URIs: $uri"
		echo "Suites: $s"
		echo "Components: main"
		if [ -r "$KEYRING" ]; then echo "Signed-By: $KEYRING"; fi
	} > "$ENTRY" || die "cannot write $ENTRY" "check that $(dirname "$ENTRY") is writable"
	# apt's output is shown only when it fails (a log of this run's own:
	# a fixed name in /tmp may belong to another user)
	local log
	log=$(mktemp) || die "cannot create a temporary file" "check that ${TMPDIR:-/tmp} is writable"
	if ! apt-get update -qq > "$log" 2>&1; then
		tail -5 "$log" >&2
		rm -f "$log"
		die "apt-get update failed after adding the deb-src entry (log above)" \
			"check the network and the mirror $uri, then run 'make deps' again;" \
			"to undo the entry: rm $ENTRY"
	fi
	rm -f "$log"
}

fetch_source() { # dir
	local dir=$1 s tree
	mkdir -p "$dir" || die "cannot create $dir" "check that the build directory is writable"
	cd "$dir" || exit 1
	if ! compgen -G 'papi-7.0*/src/configure' > /dev/null; then
		s=$(suite) || exit 1
		command -v apt-get > /dev/null || die "apt-get is not installed: this is not a Debian system" \
			"pass PAPI_SRC=/path/to/papi-7.0 to make"
		command -v dpkg-source > /dev/null || die "dpkg-source is missing (package dpkg-dev)" \
			"run 'make deps' as root"
		has_deb_src "$s" || ensure_deb_src || exit 1
		echo "papi-source: apt-get source papi (into $dir)"
		if ! apt-get source --only-source papi > apt-source.log 2>&1; then
			tail -5 apt-source.log >&2
			if grep -q "deb-src" apt-source.log; then
				die "apt knows the deb-src entry but has not fetched its index (log above)" \
					"as root, run 'apt-get update' (or 'make deps'), then make again"
			fi
			die "apt-get source papi failed (log above, in full in $dir/apt-source.log)" \
				"check the network; as root, 'apt-get update' refreshes the package lists;" \
				"or pass PAPI_SRC=/path/to/papi-7.0 to make"
		fi
	fi
	tree=$(compgen -G 'papi-7.0*/src/configure' | head -1)
	if [ -z "$tree" ]; then
		die "Debian's papi source package here is not PAPI 7.0 (found: $(ls -d papi-*/ 2>/dev/null | tr '\n' ' '))" \
			"counterlab builds against PAPI 7.0 (Debian 12); pass PAPI_SRC=/path/to/papi-7.0 to make"
	fi
	ln -sfn "${tree%/src/configure}" tree
	echo "papi-source: $(readlink tree)"
}

trap 'echo "papi-source: unexpected failure at line $LINENO: $BASH_COMMAND" >&2' ERR
case "${1:-}" in
--deb-src) ensure_deb_src ;;
--deb-src-command)
	s=$(suite) || exit 1
	has_deb_src "$s" || deb_src_command "$s"
	;;
-h | --help) sed -n '2,15s/^# \{0,1\}//p' "$0" ;;
"") die "usage: papi-source.sh DIR | --deb-src" "see the comment at the top of $0" ;;
*) fetch_source "$1" ;;
esac
