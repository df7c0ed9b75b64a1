#!/bin/bash
# Tests of the setup scripts (utils/deps.sh, utils/papi-source.sh,
# utils/install.sh) against made-up apt configurations, with stand-ins for
# id, apt-get and dpkg-query on PATH: which mirror the deb-src entry takes
# from one-line, deb822 or no sources, and that every failure path we can
# provoke names its cause and its fix. Nothing on this machine is touched.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

fake() { # name body: a stand-in command on PATH
	printf '#!/bin/bash\n%s\n' "$2" > "$tmp/bin/$1"
	chmod +x "$tmp/bin/$1"
}

setup() { # a clean made-up system: bookworm, not root, everything installed
	rm -rf "$tmp/etc" "$tmp/bin" "$tmp/out"
	mkdir -p "$tmp/etc/apt/sources.list.d" "$tmp/bin" "$tmp/out"
	printf 'ID=debian\nVERSION_CODENAME=bookworm\n' > "$tmp/os-release"
	fake id 'if [ "$1" = -u ]; then echo "${FAKE_UID:-1000}"; else exec /usr/bin/id "$@"; fi'
	fake apt-get 'echo "apt-get $*" >> "'"$tmp"'/out/apt.log"
case "$1" in
update) exit ${FAKE_UPDATE_RC:-0} ;;
source) [ -n "${FAKE_SOURCE_DIR:-}" ] && mkdir -p "$FAKE_SOURCE_DIR/src" && touch "$FAKE_SOURCE_DIR/src/configure"
	[ -n "${FAKE_SOURCE_MSG:-}" ] && echo "$FAKE_SOURCE_MSG"; exit ${FAKE_SOURCE_RC:-0} ;;
install) exit ${FAKE_INSTALL_RC:-0} ;;
esac'
	fake dpkg-query 'for p in ${FAKE_MISSING:-}; do [ "$p" = "${@: -1}" ] && exit 1; done; printf "install ok installed"'
	fake dpkg-source 'exit 0'
	export CLAB_APT_ETC=$tmp/etc/apt CLAB_OS_RELEASE=$tmp/os-release PATH=$tmp/bin:$PATH
	unset FAKE_UID FAKE_UPDATE_RC FAKE_SOURCE_DIR FAKE_SOURCE_RC FAKE_SOURCE_MSG FAKE_MISSING NO_DEB_SRC
}

# case name; then: expect RC CMD... ; and checks on $out
check() { # name condition-command...
	if "${@:2}"; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1"
		echo "---- output:"
		cat "$tmp/out/run" 2> /dev/null
	fi
}
run() { # command...: output to $tmp/out/run, status in $rc
	"$@" > "$tmp/out/run" 2>&1
	rc=$?
}
says() { grep -qF -- "$1" "$tmp/out/run"; }
entry=$tmp/etc/apt/sources.list.d/counterlab-deb-src.sources

# ---- which mirror -------------------------------------------------------
setup
echo 'deb http://ftp.fr.debian.org/debian bookworm main' > "$tmp/etc/apt/sources.list"
FAKE_UID=0 run bash utils/papi-source.sh --deb-src
check "one-line sources.list (a fresh debootstrap): entry added from its mirror" \
	eval '[ $rc = 0 ] && grep -qx "URIs: http://ftp.fr.debian.org/debian" "$entry" &&
		grep -qx "Suites: bookworm" "$entry" && grep -qx "Types: deb-src" "$entry" && says "adding a deb-src entry"'
check "  and apt-get update ran" grep -q '^apt-get update' "$tmp/out/apt.log"

setup
cat > "$tmp/etc/apt/sources.list.d/debian.sources" << 'EOF'
Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main

# the mirror
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
EOF
FAKE_UID=0 run bash utils/papi-source.sh --deb-src
check "deb822 .sources: the suite's mirror, not the security archive's" \
	grep -qx "URIs: http://mirror.example/debian" "$entry"

setup
FAKE_UID=0 run bash utils/papi-source.sh --deb-src
check "no apt sources at all: Debian's default mirror" \
	eval '[ $rc = 0 ] && grep -qx "URIs: http://deb.debian.org/debian" "$entry"'

setup
echo 'deb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main' > "$tmp/etc/apt/sources.list.d/x.list"
FAKE_UID=0 run bash utils/papi-source.sh --deb-src
check "one-line entry with [options] in a .list file" grep -qx "URIs: http://one.example/debian" "$entry"

# ---- existing deb-src entries -------------------------------------------
setup
printf 'deb http://a/debian bookworm main\ndeb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
run bash utils/papi-source.sh --deb-src
check "one-line deb-src present: found, nothing written, no root needed" \
	eval '[ $rc = 0 ] && says "has a deb-src entry" && [ ! -e "$entry" ]'

setup
printf 'Types: deb deb-src\nURIs: http://a/debian\nSuites: bookworm\nComponents: main\n' > "$tmp/etc/apt/sources.list.d/d.sources"
run bash utils/papi-source.sh --deb-src
check "deb822 'Types: deb deb-src' present: found" eval '[ $rc = 0 ] && [ ! -e "$entry" ]'

setup
printf 'Types: deb-src\nURIs: http://a/debian\nSuites: bookworm\nEnabled: no\n' > "$tmp/etc/apt/sources.list.d/d.sources"
run bash utils/papi-source.sh --deb-src
check "deb822 deb-src with 'Enabled: no' does not count" eval '[ $rc = 1 ] && says "no deb-src entry"'

setup
printf 'deb-src http://a/debian bullseye main\n' > "$tmp/etc/apt/sources.list"
run bash utils/papi-source.sh --deb-src
check "deb-src of another suite does not count" eval '[ $rc = 1 ]'

# ---- failure paths --------------------------------------------------------
setup
echo 'deb http://m.example/debian bookworm main' > "$tmp/etc/apt/sources.list"
run bash utils/papi-source.sh --deb-src
check "not root, no deb-src: fails, names the cause and a one-line fix" \
	eval '[ $rc = 1 ] && says "no deb-src entry for bookworm" && says "make deps" &&
		says "echo '"'"'deb-src http://m.example/debian bookworm main'"'"' > "'
line=$(grep "echo 'deb-src" "$tmp/out/run" | sed 's/^ *//')
run bash -c "$line"
run bash utils/papi-source.sh --deb-src
check "  the printed line, pasted, gives apt its deb-src entry" eval '[ $rc = 0 ] && says "has a deb-src entry"'

setup
rm "$tmp/os-release"
run bash utils/papi-source.sh --deb-src
check "no os-release: names the file and PAPI_SRC" eval '[ $rc = 1 ] && says "os-release" && says "PAPI_SRC="'

setup
printf 'ID=debian\n' > "$tmp/os-release"
run bash utils/papi-source.sh --deb-src
check "os-release without a codename: says so" eval '[ $rc = 1 ] && says "VERSION_CODENAME"'

setup
FAKE_UID=0 FAKE_UPDATE_RC=100 run bash utils/papi-source.sh --deb-src
check "apt-get update fails after adding: says so, how to undo" \
	eval '[ $rc = 1 ] && says "apt-get update failed" && says "rm $entry"'

setup
printf 'deb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
FAKE_SOURCE_RC=100 FAKE_SOURCE_MSG="E: You must put some 'deb-src' URIs in your sources.list" \
	run bash utils/papi-source.sh "$tmp/papi"
check "apt-get source without fetched deb-src index: run apt-get update as root" \
	eval '[ $rc = 1 ] && says "has not fetched its index" && says "apt-get update"'

setup
printf 'deb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
FAKE_SOURCE_RC=100 FAKE_SOURCE_MSG="Temporary failure resolving" run bash utils/papi-source.sh "$tmp/papi2"
check "apt-get source fails otherwise: the network, the log, PAPI_SRC" \
	eval '[ $rc = 1 ] && says "apt-get source papi failed" && says "apt-source.log" && says "PAPI_SRC="'

setup
printf 'deb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
FAKE_SOURCE_DIR=$tmp/papi3/papi-6.0.0.1 run bash utils/papi-source.sh "$tmp/papi3"
check "a source package that is not PAPI 7.0: names what was found" \
	eval '[ $rc = 1 ] && says "not PAPI 7.0" && says "papi-6.0.0.1"'

setup
printf 'deb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
FAKE_SOURCE_DIR=$tmp/papi4/papi-7.0.0 run bash utils/papi-source.sh "$tmp/papi4"
check "PAPI 7.0 unpacked: DIR/tree points at it" \
	eval '[ $rc = 0 ] && [ "$(readlink "$tmp/papi4/tree")" = papi-7.0.0 ]'

setup
rm "$tmp/bin/dpkg-source"
mkdir -p "$tmp/nobin" && for t in bash awk sed grep tail head ls mkdir ln readlink tr dirname cat id; do
	ln -sf "$(command -v $t)" "$tmp/nobin/$t"; done
	rm -f "$tmp/nobin/id"
cp "$tmp/bin/"* "$tmp/nobin/"
PATH=$tmp/nobin run "$tmp/nobin/bash" utils/papi-source.sh "$tmp/papi5"
check "dpkg-source missing: run make deps" eval '[ $rc = 1 ] && says "dpkg-dev" && says "make deps"'

# ---- deps.sh ----------------------------------------------------------------
setup
FAKE_MISSING="libfoo-dev libbar-dev" run bash utils/deps.sh install libfoo-dev libbaz-dev libbar-dev
line=$(grep -A1 "run this line as root" "$tmp/out/run" | tail -1)
check "deps, not root, packages and deb-src missing: one line for root does both" \
	eval '[ $rc = 1 ] && [ "$(grep -c "run this line as root" "$tmp/out/run")" = 1 ] &&
		[[ "$line" == *"deb-src http://deb.debian.org/debian bookworm main"*"apt-get install -y libfoo-dev libbar-dev" ]]'
FAKE_UID=0 run bash -c "$line"
run bash utils/papi-source.sh --deb-src
check "  the line, pasted as root, gives apt its deb-src entry and installs" \
	eval '[ $rc = 0 ] && grep -q "apt-get install -y libfoo-dev libbar-dev" "$tmp/out/apt.log"'

setup
printf 'deb-src http://a/debian bookworm main\n' > "$tmp/etc/apt/sources.list"
run bash utils/deps.sh install libfoo-dev
check "deps, not root, all present with deb-src: nothing to do" eval '[ $rc = 0 ] && says "all Debian packages present"'

setup
NO_DEB_SRC=1 FAKE_MISSING=libfoo-dev run bash utils/deps.sh install libfoo-dev
check "deps with PAPI_SRC given: no deb-src in the line" \
	eval '[ $rc = 1 ] && ! says "deb-src http" && says "apt-get install -y libfoo-dev"'

setup
FAKE_UID=0 FAKE_MISSING=libfoo-dev run bash utils/deps.sh install libfoo-dev
check "deps as root: installs, then adds the deb-src entry" \
	eval '[ $rc = 0 ] && grep -q "install -y -qq libfoo-dev" "$tmp/out/apt.log" && [ -e "$entry" ]'

setup
FAKE_UID=0 FAKE_MISSING=libfoo-dev FAKE_INSTALL_RC=100 run bash utils/deps.sh install libfoo-dev
check "deps as root, apt-get install fails: says so" eval '[ $rc = 1 ] && says "apt-get install failed"'

setup
FAKE_MISSING="a b" run bash utils/deps.sh check a b c
check "deps check: lists the missing on one line and the command" \
	eval '[ $rc = 1 ] && says "missing Debian packages: a b" && says "apt-get install -y a b"'

# ---- install.sh ---------------------------------------------------------------
setup
run bash utils/install.sh install "$tmp/nostage" "$tmp/inst"
check "install with nothing built: says run make" eval '[ $rc = 1 ] && says "run '"'"'make'"'"' first"'
mkdir -p "$tmp/stage/lib" && touch "$tmp/stage/lib/libpapi.so" "$tmp/stage/lib/libcounterlab.so"
run bash utils/install.sh install "$tmp/stage" relative/dir
check "install to a relative PREFIX: refused" eval '[ $rc = 1 ] && says "absolute path"'
run bash utils/install.sh uninstall "$tmp/nothing-here"
check "uninstall where nothing is installed: says so" eval '[ $rc = 1 ] && says "no counterlab installed"'
mkdir -p "$tmp/bad/share/counterlab" "$tmp/bad/lib" && touch "$tmp/bad/lib/keep"
printf 'lib/keep\n../../etc/passwd\n' > "$tmp/bad/share/counterlab/install-manifest"
run bash utils/install.sh uninstall "$tmp/bad"
check "uninstall with a malformed manifest: refuses, removes nothing" \
	eval '[ $rc = 1 ] && says "malformed line" && [ -e "$tmp/bad/lib/keep" ]'

echo
echo "$passed passed, $failed failed"
[ $failed = 0 ]
