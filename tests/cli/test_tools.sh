#!/bin/bash
# What the counterlab-* programs say about themselves: --help and -h print
# usage on stdout and exit 0 (the MPI programs from rank 0 only, without
# MPI_Abort); the MPI programs' errors are printed once and exit non-zero.
# usage: test_tools.sh BINDIR
set -u
bindir=${1:?usage: test_tools.sh BINDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
export COUNTERLAB_MACHINES=${COUNTERLAB_MACHINES:-$PWD/machines}
MPI_PROGS="pingpong fft3d stencil congest"
mpi2() { timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$@"; }

progs=$(cd "$bindir" && ls counterlab-* 2>/dev/null)
[ "$(wc -w <<<"$progs")" -ge 8 ] || bad "fewer than 8 counterlab-* programs in $bindir: $progs"

# help PROG FLAG: exit 0, one usage line on stdout, nothing on stderr
help() {
	local p=$1 flag=$2 rc launch=()
	[[ " $MPI_PROGS " == *" ${p#counterlab-} "* ]] && launch=(mpi2)
	"${launch[@]}" "$bindir/$p" "$flag" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 0 ]; then
		bad "$p $flag: exit $rc: $(head -3 "$tmp/err")"
	elif [ "$(grep -c '^usage:' "$tmp/out")" != 1 ]; then
		bad "$p $flag: want one usage line on stdout, got $(grep -c '^usage:' "$tmp/out")"
	elif [ -s "$tmp/err" ]; then
		bad "$p $flag: stderr: $(head -3 "$tmp/err")"
	else
		ok "$p $flag: usage on stdout, exit 0"
	fi
}
for p in $progs; do
	help "$p" --help
	help "$p" -h
done

# once NEEDLE -- COMMAND...: an MPI program's error: NEEDLE once on
# stderr, a non-zero exit, no MPI_ABORT banner
once() {
	local needle=$1 rc n
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$(grep -cF -- "$needle" "$tmp/err")
	if [ $rc = 0 ] || [ "$n" != 1 ] || grep -q MPI_ABORT "$tmp/err"; then
		bad "${*##*/}: exit $rc, '$needle' $n times: $(head -5 "$tmp/err")"
	else
		ok "${*##*/}: said once, exit $rc"
	fi
}
for p in $MPI_PROGS; do
	once "bad argument --bogus" -- mpi2 "$bindir/counterlab-$p" --bogus
done
COUNTERLAB_MACHINE=bgq:clock=virtual,activity=none once "cannot count event network:::NO_SUCH_EVENT" -- \
	mpi2 -x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES "$bindir/counterlab-pingpong" --events network:::NO_SUCH_EVENT

echo "$fails failed"
[ $fails = 0 ]
