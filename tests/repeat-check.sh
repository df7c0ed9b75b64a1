#!/bin/bash
# Runs `make check`'s tests (tests/run.sh) several times in a row and
# compares what they decided, to show the gate does not follow the load:
#
#   bash tests/repeat-check.sh [-n RUNS] [--load]
#
# --load keeps every core busy with a spinning process of its own for the
# whole time. Each run's per-test outcome (ok or FAIL) and each PAPI suite
# row's gating outcome are kept in $BUILD/tests/repeat/run-K.tsv; the load:
# rows' observed verdicts are listed apart (they do not gate). Exits 1 when
# two runs decided anything differently or a run failed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
runs=3 load=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	--load) load=1 ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "repeat-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "repeat-check: -n takes a whole number above 0" >&2; exit 2; }
out=$BUILD/tests/repeat
mkdir -p "$out"
spinners=()
stop_load() { [ ${#spinners[@]} -gt 0 ] && kill "${spinners[@]}" 2> /dev/null; spinners=(); }
trap stop_load EXIT
if [ $load = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		bash -c 'while :; do :; done' &
		spinners+=($!)
	done
	echo "repeat-check: ${#spinners[@]} spinning processes keep the cores busy"
fi
status=0
observed=$BUILD/tests/papi-suite-observed.tsv
for k in $(seq "$runs"); do
	s=$SECONDS
	rm -f "$observed"
	bash tests/run.sh > "$out/run-$k.log" 2>&1 || status=1
	touch "$observed" # none: a quick run
	{
		# each test: ok unless its name is among the failures
		grep '^== ' "$out/run-$k.log" | sed 's/^== //; s/ .*//' | sort -u |
			while read -r t; do
				if grep -q -- "^-- $t FAILED" "$out/run-$k.log"; then echo "$t	FAIL"; else echo "$t	ok"; fi
			done
		awk -F'\t' 'NR > 1 { g = ($4 ~ /^load:/) ? "load" : (index("|" $4 "|", "|" $3 "|") ? "ok" : "DEVIATION")
			print "suite:" $1 "[" $2 "]\t" g }' "$observed"
	} > "$out/run-$k.tsv"
	awk -F'\t' 'NR > 1 && $4 ~ /^load:/ { print $1 "[" $2 "]\t" $3 }' "$observed" > "$out/load-$k.tsv"
	echo "run $k: $(tail -1 "$out/run-$k.log") in $((SECONDS - s)) s"
done
for k in $(seq 2 "$runs"); do
	if ! diff -q "$out/run-1.tsv" "$out/run-$k.tsv" > /dev/null; then
		echo "repeat-check: run $k decided differently from run 1:"
		diff "$out/run-1.tsv" "$out/run-$k.tsv" | sed 's/^/  /'
		status=1
	fi
done
echo "load: rows (reported, not gating), observed verdict per run:"
paste "$out"/load-*.tsv | awk -F'\t' '{ line = $1; for (i = 2; i <= NF; i += 2) line = line " " $i; print "  " line }'
[ $status = 0 ] && echo "repeat-check: $runs runs decided alike$([ $load = 1 ] && echo ', under load')"
exit $status
