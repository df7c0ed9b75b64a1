#!/bin/bash
# What the counterlab-* programs say about themselves: --help and -h print
# usage on stdout and exit 0 (the MPI programs from rank 0 only, without
# MPI_Abort); the MPI programs' errors are printed once and exit non-zero.
# usage: test_tools.sh BINDIR
set -u
bindir=${1:?usage: test_tools.sh BINDIR}
. "$(dirname "$0")/lib.sh"
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

# counterlab-map: every machine it knows (as its error lists them) writes
# a map and is named by --help and the man page
map=$bindir/counterlab-map
known=$("$map" --machine nosuch perm 2>&1 | sed -n 's/.*known machines are //p')
[ -n "$known" ] || bad "counterlab-map --machine nosuch: no list of the known machines"
# the page's lines that name the machines, roff's \- as -
sed -n 's/\\-/-/g; /--machine " /p' "$(dirname "$bindir")/share/man/man1/counterlab-map.1" >"$tmp/mapman"
for m in $known; do
	if "$map" --machine "$m" perm >"$tmp/out" 2>&1 && grep -q "^# $m torus" "$tmp/out" &&
		"$map" --help | grep -q -- "--machine [a-z|]*\b$m\b" &&
		[ "$(grep -c -- "--machine \" [a-z|]*\b$m\b" "$tmp/mapman")" = 2 ]; then
		ok "counterlab-map --machine $m: a map; named by --help and the man page"
	else
		bad "counterlab-map --machine $m: $(head -2 "$tmp/out"); --help: $("$map" --help | grep -m1 -- --machine); page: $(cat "$tmp/mapman")"
	fi
done

# counterlab-native-avail --check: the framework's own add path and its
# reason; exit 0 fit, 1 conflict, 2 bad question
avail=$bindir/counterlab-native-avail
# check STATUS NEEDLE -- ARGS...: exit STATUS and NEEDLE in the output
check() {
	local want=$1 needle=$2 rc
	shift 3
	COUNTERLAB_MACHINE=bgq:clock=virtual "$avail" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc = "$want" ] && grep -qF -- "$needle" "$tmp/out"; then
		ok "native-avail $*: exit $rc, '$needle'"
	else
		bad "native-avail $*: exit $rc (want $want): $(head -5 "$tmp/out") (want '$needle')"
	fi
}
AXU=PEVT_AXU_INSTR_COMMIT,PEVT_AXU_CR_COMMIT,PEVT_AXU_IDLE,PEVT_AXU_FP_DS_ACTIVE
check 0 "fits: 2 events in one event set on machine bgq" -- --check PEVT_CYCLES,PEVT_INST_ALL
check 0 "fits: 4 events" -- --check $AXU
# each line names the counter its event has in the set as it ends (an add
# may move the events before it): four events, four counters
if [ "$(grep -c 'component core, counter' "$tmp/out")" = 4 ] &&
	[ "$(awk '/component core, counter/ { print $NF }' "$tmp/out" | sort -u | wc -l)" = 4 ]; then
	ok "native-avail --check: four events on four counters"
else
	bad "native-avail --check: counters as printed: $(grep 'counter' "$tmp/out" | tr '\n' ';')"
fi
check 1 "does not fit: PEVT_AXU_FP_DS_ACTIVE_CYC: 5 events do not fit the counters" -- \
	--check $AXU,PEVT_AXU_FP_DS_ACTIVE_CYC
check 1 "does not fit: PEVT_L2_HITS is an event of component l2, PEVT_CYCLES of core" -- \
	--check PEVT_CYCLES,PEVT_L2_HITS
check 2 "no component of machine bgq has an event 'NO_SUCH'" -- --check PEVT_CYCLES,NO_SUCH
check 2 "give one of --check, --event" -- --check PEVT_CYCLES --csv
check 2 "--check wants EVENT" -- --check ,
# an event twice: PAPI_add_event refuses it (PAPI_ECNFLCT), however spelled
check 1 "does not fit: PEVT_CYCLES: the event set already holds it;" -- --check PEVT_CYCLES,PEVT_CYCLES
check 1 "does not fit: core:::PEVT_CYCLES: the event set already holds it (as PEVT_CYCLES)" -- \
	--check PEVT_CYCLES,PEVT_INST_ALL,core:::PEVT_CYCLES
# an empty item is refused wherever it is, not skipped
check 2 "item 2 is empty" -- --check PEVT_CYCLES,,PEVT_INST_ALL
check 2 "item 2 is empty" -- --check PEVT_CYCLES,
check 2 "item 1 is empty" -- --check ,PEVT_CYCLES
check 2 "item 1 is empty" -- --check ''
check 2 "no machine profile 'nosuch'" -- -m nosuch --check PEVT_CYCLES
# --list-machines: every profile of the directory, with its description
"$avail" --list-machines >"$tmp/out" 2>&1
for f in "$COUNTERLAB_MACHINES"/*.ini; do
	name=$(basename "$f" .ini)
	descr=$(sed -n 's/^description *= *//p' "$f" | head -1)
	if grep -qxF -- "$(printf '%-16s %s' "$name" "$descr")" "$tmp/out"; then
		ok "--list-machines: $name"
	else
		bad "--list-machines lacks '$name $descr': $(cat "$tmp/out")"
	fi
done
mkdir "$tmp/machines"
printf '[machine]\ndescription = a test profile\n' >"$tmp/machines/mine.ini"
printf 'no section\n' >"$tmp/machines/broken.ini"
COUNTERLAB_MACHINES=$tmp/machines "$avail" --list-machines >"$tmp/out" 2>&1
if [ "$(grep -c . "$tmp/out")" = 3 ] && grep -q '^mine  *a test profile$' "$tmp/out" &&
	grep -q '^broken  *machine profile .*broken.ini' "$tmp/out"; then
	ok "--list-machines follows COUNTERLAB_MACHINES; a broken profile says why"
else
	bad "--list-machines with COUNTERLAB_MACHINES=$tmp/machines: $(cat "$tmp/out")"
fi

# counterlab-run refuses what it cannot run before the emulator starts:
# bad usage exits 2, a program that cannot be started 127
# runs STATUS NEEDLE -- ARGS...: exit STATUS, NEEDLE on stderr
runs() {
	local want=$1 needle=$2 rc
	shift 3
	"$bindir/counterlab-run" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = "$want" ] && if [ -n "$needle" ]; then grep -qF -- "$needle" "$tmp/err"; else ! [ -s "$tmp/err" ]; fi; then
		ok "counterlab-run $*: exit $rc, '$needle'"
	else
		bad "counterlab-run $*: exit $rc (want $want): $(head -3 "$tmp/err") (want '$needle')"
	fi
}
runs 2 "--cache bogus: the policies are a2 and cachegrind" -- --cache bogus true
runs 2 "--machine needs a value" -- --machine
runs 2 "--machine needs a profile name" -- --machine= true
runs 2 "machine nosuch: no machine profile 'nosuch'" -- --machine=nosuch true
runs 2 "--cache bogus: the policies are a2 and cachegrind" -- --cache=bogus true
runs 0 "" -- --machine=bgq --cache=cachegrind true
runs 2 "--summary needs a value" -- --summary
runs 2 "--summary needs a file name" -- --summary "" true
for m in host linux-proc bgl gemini; do
	runs 2 "machine $m has no simulated BG/Q node (no bgq-* backend) for the program's instructions to drive; machines that have one: bgq-live, bgq" -- \
		--machine $m true
done
runs 2 "machine nosuch: no machine profile 'nosuch'" -- --machine nosuch true
runs 2 "cannot write summary $tmp/none/x: $tmp/none: No such file or directory" -- --summary "$tmp/none/x" true
runs 2 "cannot write summary $tmp: it is a directory" -- --summary "$tmp" true
runs 2 "the program name is empty" -- ""
runs 127 "$tmp is a directory, not a program" -- "$tmp"

# COUNTERLAB_VERBOSE=1: PAPI programs say why a component is disabled (once,
# at PAPI_library_init) and why an event was refused; silent without it.
# verbose COUNT NEEDLE -- ENV... PROGRAM ARGS...: NEEDLE COUNT times on stderr
verbose() {
	local want=$1 needle=$2 n
	shift 3
	env COUNTERLAB_MACHINES="$COUNTERLAB_MACHINES" "$@" >/dev/null 2>"$tmp/err"
	n=$(grep -cF -- "$needle" "$tmp/err")
	if [ "$n" = "$want" ]; then
		ok "${*##*/}: '$needle' $n times"
	else
		bad "${*##*/}: '$needle' $n times, want $want: $(head -5 "$tmp/err")"
	fi
}
refused="counterlab: adding PEVT_AXU_FP_DS_ACTIVE_CYC: events cannot be counted together: 5 events do not fit"
verbose 1 "$refused" -- COUNTERLAB_VERBOSE=1 COUNTERLAB_MACHINE=bgq:clock=virtual \
	"$bindir/papi_command_line" ${AXU//,/ } PEVT_AXU_FP_DS_ACTIVE_CYC
verbose 0 "counterlab:" -- COUNTERLAB_MACHINE=bgq:clock=virtual \
	"$bindir/papi_command_line" ${AXU//,/ } PEVT_AXU_FP_DS_ACTIVE_CYC
verbose 0 "counterlab:" -- COUNTERLAB_VERBOSE=0 COUNTERLAB_MACHINE=bgq:clock=virtual \
	"$bindir/papi_command_line" ${AXU//,/ } PEVT_AXU_FP_DS_ACTIVE_CYC
disabled="counterlab: component core is disabled: machine bgq-live has no component 'core'"
verbose 1 "$disabled" -- COUNTERLAB_VERBOSE=1 COUNTERLAB_MACHINE=bgq-live "$bindir/papi_component_avail"
verbose 0 "counterlab:" -- COUNTERLAB_MACHINE=bgq-live "$bindir/papi_component_avail"

# make bench: the plan first; JSON into the build tree, bench/results/ only
# with UPDATE=1
root=$(cd "$(dirname "$0")/../.." && pwd)
BENCHES="gemini netsim" BENCH_PLAN_ONLY=1 BUILD=$tmp/b bash "$root/bench/run.sh" >"$tmp/out" 2>&1
if grep -q '^  gemini  *~1 min$' "$tmp/out" && grep -q '^  netsim  *~1 min$' "$tmp/out" &&
	grep -qF "about 3 minutes in all; results into $tmp/b/bench-results" "$tmp/out" && [ ! -e "$tmp/b" ]; then
	ok "bench/run.sh: the plan, its time and where results go, before anything runs"
else
	bad "bench/run.sh plan: $(cat "$tmp/out")"
fi
sum=$(cat "$root"/bench/results/*.json | cksum)
if BENCHES=gemini BUILD=$tmp/b PREFIX=$(dirname "$bindir") bash "$root/bench/run.sh" >"$tmp/out" 2>&1 &&
	[ -s "$tmp/b/bench-results/gemini.json" ] && [ "$sum" = "$(cat "$root"/bench/results/*.json | cksum)" ]; then
	ok "bench/run.sh: gemini.json in \$BUILD/bench-results, bench/results/ untouched"
else
	bad "bench/run.sh BENCHES=gemini: $(tail -5 "$tmp/out")"
fi
for u in "" 1; do
	want=$([ -n "$u" ] && echo "$root/bench/results" || echo bench-results)
	if make -C "$root" -n -o all bench UPDATE=$u BUILD="${BUILD:-build}" 2>&1 | grep -q "BENCH_RESULTS=[^ ]*$want "; then
		ok "make bench UPDATE=$u: results into $want"
	else
		bad "make bench UPDATE=$u: $(make -C "$root" -n -o all bench UPDATE=$u 2>&1 | tail -3)"
	fi
done

# Man pages: one in section 1 for each program, counterlab(7); each option
# of --help in the program's page, each option the page describes in --help
stage=$(dirname "$bindir")
mandir=$(cd "$stage/share/man" && pwd) # man -w answers with absolute paths
# opts: the options that begin the lines of --help or of a page's .TP tags
opts() { grep -oE '^ *(-[A-Za-z], )?--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ' | tr ',' '\n' | sort -u; }
# plain FILE: a page's text without roff's escapes
plain() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z][A-Z]* //' "$1"; }
for p in $progs; do
	page=$mandir/man1/$p.1
	[ -f "$page" ] || { bad "no man page $page"; continue; }
	launch=()
	[[ " $MPI_PROGS " == *" ${p#counterlab-} "* ]] && launch=(mpi2)
	"${launch[@]}" "$bindir/$p" --help 2>/dev/null | opts >"$tmp/help.opts"
	plain "$page" >"$tmp/page"
	missing=$(while read -r o; do
		grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$tmp/page" || echo "$o"
	done <"$tmp/help.opts")
	# the tag line after each .TP of the page
	extra=$(awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$tmp/page" | opts |
		grep -vxF -f "$tmp/help.opts")
	if [ ! -s "$tmp/help.opts" ] || [ -n "$missing$extra" ]; then
		bad "$p: --help options not in $page: ${missing:-none}; page options not in --help: ${extra:-none}"
	else
		ok "$p: its man page describes the $(wc -l <"$tmp/help.opts") options of --help, no others"
	fi
done
[ -f "$mandir/man7/counterlab.7" ] && ok "counterlab(7) staged" || bad "no $mandir/man7/counterlab.7"
# every command of a page's EXAMPLES runs as written (in a scratch
# directory, on the default machine, with the staged programs)
mkdir "$tmp/examples"
for page in "$mandir"/man1/*.1 "$mandir"/man7/*.7; do
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$page" | sed -n '/^\.nf/,/^\.fi/p' | grep -v '^\.' |
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' >"$tmp/cmds"
	while IFS= read -r cmd; do
		if (cd "$tmp/examples" && env -u COUNTERLAB_MACHINE PATH="$bindir:$PATH" \
			timeout 120 bash -c "$cmd") >"$tmp/out" 2>&1; then
			ok "$(basename "$page") example runs: $cmd"
		else
			bad "$(basename "$page") example: $cmd: $(tail -3 "$tmp/out")"
		fi
	done <"$tmp/cmds"
done
# every COUNTERLAB_* variable the sources read is in counterlab(7)
root_src=$(cd "$(dirname "$0")/../.." && pwd)
for v in $(grep -rhoE 'getenv\("COUNTERLAB_[A-Z_]+"|"COUNTERLAB_[A-Z_]+"' "$root_src"/framework "$root_src"/backends \
	"$root_src"/sim_backends "$root_src"/components "$root_src"/compat "$root_src"/utils | grep -oE 'COUNTERLAB_[A-Z_]+' | sort -u); do
	grep -q "$v" "$mandir/man7/counterlab.7" && ok "counterlab(7): $v" || bad "counterlab(7) lacks $v"
done
if command -v man >/dev/null; then
	for p in $progs counterlab; do
		if MANPATH=$mandir man -w "$p" 2>/dev/null | grep -q "^$mandir/" &&
			MANPATH=$mandir MANWIDTH=80 man "$p" 2>"$tmp/err" | grep -q "^NAME" && [ ! -s "$tmp/err" ]; then
			ok "MANPATH=$mandir man $p"
		else
			bad "MANPATH=$mandir man $p: $(MANPATH=$mandir man -w "$p" 2>&1) $(cat "$tmp/err")"
		fi
	done
else
	echo "# man is not installed: pages checked as files only"
fi
# make install puts them in PREFIX/share/man/man1 and man7; uninstall removes them
bash "$root_src/utils/install.sh" install "$stage" "$tmp/inst" >"$tmp/out" 2>&1
if [ -f "$tmp/inst/share/man/man1/counterlab-netsim.1" ] && [ -f "$tmp/inst/share/man/man7/counterlab.7" ] &&
	grep -qx share/man/man7/counterlab.7 "$tmp/inst/share/counterlab/install-manifest"; then
	ok "install: the man pages in PREFIX/share/man/man1 and man7"
else
	bad "install: man pages missing: $(tail -3 "$tmp/out")"
fi
bash "$root_src/utils/install.sh" uninstall "$tmp/inst" >"$tmp/out" 2>&1
[ ! -e "$tmp/inst" ] && ok "uninstall: removed, man pages too" || bad "uninstall left: $(find "$tmp/inst" | head -5)"

finish
