#!/bin/bash
# The fresh-machine test (make fresh-check; CI runs it after make check).
#
# Bootstraps a minimal Debian 12 root filesystem with only git, make and
# ca-certificates added, clones the commit under test into it and follows
# README.md as a new user would:
#   1. as root: make demo, make check;
#   2. the installed tree: make install PREFIX=/opt/counterlab with the
#      network cut off (nothing is fetched again), no build-tree path in any
#      installed RUNPATH, examples/hello_papi.c built with pkg-config alone
#      counting PAPI_TOT_CYC with the build tree gone, make uninstall;
#   3. on a second fresh root filesystem, as an unprivileged user: make deps,
#      the one line it prints run as root, make deps again, make demo, make
#      check-quick (the whole make check ran as root already).
# Needs root and the network; it fails, never skips, when it cannot run.
# FRESH_STEPS="root install user" (the default) picks parts: "install" needs
# "root"; "user" stands alone.
# The bootstrapped system is cached in $BUILD/fresh/rootfs.tar.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
BUILD=$(realpath -m "${BUILD:-build}") # (absolute: the paths below hang from it)
work=$BUILD/fresh
root=$work/root
logs=$work/logs
MIRROR=${FRESH_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
STEPS=" ${FRESH_STEPS:-root install user} "
t0=$SECONDS

say() { printf '[fresh %4ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() {
	echo "fresh-machine: FAILED: $1" >&2
	shift
	for line in "$@"; do echo "  $line" >&2; done
	exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mounts)" "run 'make fresh-check' as root"
commit=$(git rev-parse HEAD 2> /dev/null) || fail "$top is not a git checkout" "run it from a clone"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	say "note: uncommitted changes are not part of the test; testing commit $commit"
if ! command -v debootstrap > /dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null 2>&1 ||
		fail "cannot install debootstrap" "as root: apt-get update && apt-get install -y debootstrap"
fi
mkdir -p "$work" "$logs" || fail "cannot create $work"

mounted=()
unmount_all() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2> /dev/null || umount -l "${mounted[i]}" 2> /dev/null
	done
	mounted=()
}
trap unmount_all EXIT
trap 'unmount_all; exit 130' INT TERM

mount_into() { # target: what a chroot needs from the host
	local r=$1
	mount -t proc proc "$r/proc" && mounted+=("$r/proc") &&
		mount -t sysfs sys "$r/sys" && mounted+=("$r/sys") &&
		mount --bind /dev "$r/dev" && mounted+=("$r/dev") &&
		mount --bind /dev/pts "$r/dev/pts" && mounted+=("$r/dev/pts") &&
		mount -t tmpfs shm "$r/dev/shm" && mounted+=("$r/dev/shm") ||
		fail "cannot mount /proc, /sys or /dev into $r"
	cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2> /dev/null || true
}

# A pristine root filesystem in $root, from the cache or debootstrap.
fresh_root() {
	unmount_all
	rm -rf "$root" || fail "cannot remove the previous $root"
	if [ ! -f "$work/rootfs.tar" ]; then
		say "debootstrap --variant=minbase $SUITE ($MIRROR), adding git, make, ca-certificates"
		rm -rf "$work/boot"
		debootstrap --variant=minbase --include=git,make,ca-certificates "$SUITE" \
			"$work/boot" "$MIRROR" > "$logs/debootstrap.log" 2>&1 ||
			fail "debootstrap failed (last lines of $logs/debootstrap.log below)" \
				"$(tail -3 "$logs/debootstrap.log")" "check the network, or set FRESH_MIRROR"
		tar -C "$work/boot" -cf "$work/rootfs.tar.tmp" . && mv "$work/rootfs.tar.tmp" "$work/rootfs.tar" ||
			fail "cannot write $work/rootfs.tar"
		rm -rf "$work/boot"
	fi
	mkdir -p "$root" && tar -C "$root" -xf "$work/rootfs.tar" || fail "cannot unpack $work/rootfs.tar"
	# debootstrap writes no /etc/hosts; Debian's installer does (localhost and
	# the host name), and without it every mpirun waits 10 s for the name
	[ -e "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" > "$root/etc/hosts"
	[ -d "$root/etc/apt/sources.list.d" ] && [ -z "$(ls "$root/etc/apt/sources.list.d")" ] ||
		fail "the bootstrapped system is not pristine (sources.list.d not empty)"
	mount_into "$root"
}

in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 bash -c "$1"; }
as_user() { chroot --userspec=user:user "$root" /usr/bin/env -i HOME=/home/user USER=user \
	PATH=/usr/bin:/bin LANG=C.UTF-8 bash -c "$1"; }

clone_into() { # dir owner (a user of the root filesystem)
	git clone -q --no-hardlinks "$top" "$root$1" && git -C "$root$1" checkout -q "$commit" &&
		in_root "chown -R $2 $1" || fail "cannot clone $top into the root filesystem"
}

step() { # name log command...: runs, times, keeps the log, fails loudly
	local name=$1 log=$logs/$2 s=$SECONDS
	shift 2
	say "$name"
	if ! "$@" > "$log" 2>&1; then
		tail -25 "$log" >&2
		fail "$name (log: $log)"
	fi
	say "  ok in $((SECONDS - s)) s"
}

summary_ok() { # log: make check's last line says nothing failed
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(,| \(|$)' "$1" | tail -1)
	[ -n "$line" ] && [[ "${line#*, }" == "0 failed"* ]] || fail "make check did not end with '0 failed' ($1)"
	say "  make check: $line"
}

wants() { [[ "$STEPS" == *" $1 "* ]]; }
if wants install && ! wants root; then
	fail "FRESH_STEPS: install needs root (it installs what the root step built)"
fi

# ---- 1. as root, the README's two commands -----------------------------------
if wants root; then
fresh_root
clone_into /root/counterlab root:root
step "root: make demo" root-demo.log in_root "cd /root/counterlab && make demo"
step "root: make check" root-check.log in_root "cd /root/counterlab && make check"
summary_ok "$logs/root-check.log"
fi

# ---- 2. the installed tree ----------------------------------------------------
if wants install; then
cp examples/hello_papi.c "$root/tmp/outside.c" || fail "cannot copy examples/hello_papi.c"
step "root: make install PREFIX=/opt/counterlab (network cut off)" install.log \
	in_root "cd /root/counterlab && http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
		make install PREFIX=/opt/counterlab"
say "installed RUNPATHs name no build-tree path"
bad=$(in_root 'for f in $(find /opt/counterlab -type f); do
	[ "$(head -c 4 "$f")" = "$(printf "\177ELF")" ] || continue
	readelf -d "$f" | grep -E "RPATH|RUNPATH" | grep -q /root/counterlab && echo "$f"
done')
[ -z "$bad" ] || fail "installed files with build-tree RUNPATHs:" $bad
step "outside program built with pkg-config alone" outside-build.log in_root \
	'cd /tmp && cc outside.c -o outside $(PKG_CONFIG_PATH=/opt/counterlab/lib/pkgconfig pkg-config --cflags --libs papi counterlab)'
mv "$root/root/counterlab" "$root/root/counterlab.away" || fail "cannot move the build tree away"
step "outside program runs without the build tree" outside-run.log in_root '/tmp/outside'
grep -E '^PAPI_TOT_CYC [1-9][0-9]*$' "$logs/outside-run.log" > /dev/null ||
	fail "the outside program did not count PAPI_TOT_CYC ($logs/outside-run.log)"
say "  $(cat "$logs/outside-run.log")"
mv "$root/root/counterlab.away" "$root/root/counterlab" || fail "cannot move the build tree back"
step "root: make uninstall PREFIX=/opt/counterlab" uninstall.log \
	in_root "cd /root/counterlab && make uninstall PREFIX=/opt/counterlab"
[ ! -e "$root/opt/counterlab" ] || fail "make uninstall left $(find "$root/opt/counterlab" | head -3)"
fi

# ---- 3. as an unprivileged user, following README's non-root lines -----------
if wants user; then
fresh_root
in_root "useradd -m user" || fail "cannot add a user to the root filesystem"
clone_into /home/user/counterlab user:user
say "user: make deps (must fail and print one line to run as root)"
as_user "cd ~/counterlab && make deps" > "$logs/user-deps.log" 2>&1 &&
	fail "make deps as a user with packages missing succeeded ($logs/user-deps.log)"
hint=$(grep -A1 'run this line as root' "$logs/user-deps.log" | tail -1)
[ -n "$hint" ] || fail "make deps printed no command to run as root ($logs/user-deps.log)" \
	"$(tail -5 "$logs/user-deps.log")"
step "root: the line make deps printed:$hint" user-deps-root.log in_root "$hint"
step "user: make deps (now satisfied)" user-deps2.log as_user "cd ~/counterlab && make deps"
step "user: make demo" user-demo.log as_user "cd ~/counterlab && make demo"
step "user: make check-quick" user-check.log as_user "cd ~/counterlab && make check-quick"
summary_ok "$logs/user-check.log"
fi

unmount_all
rm -rf "$root"
say "fresh-machine: PASSED (commit $commit)"
