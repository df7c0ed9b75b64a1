#!/bin/bash
# The benchmark figures the documentation quotes are bench/results/*.json's:
# every table bench/tables.sh makes appears in the docs (the torus model's in
# docs/torus.md, the others in docs/benchmarks.md), each generated block is
# what bench/tables.sh makes from the JSON now (a figure edited by hand, or
# JSON updated without the docs, fails), and each starts with the date and
# machine its JSON records.
# usage: test_docs_figures.sh [ROOT]   (ROOT: the tree to check, default this one)
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
tables=$(cd "$(dirname "$0")/../.." && pwd)/bench/tables.sh
cd "$top" || exit 2
. "$(dirname "$0")/lib.sh"

# where each table belongs
declare -A home=([netsim-validation]=docs/torus.md [booksim]=docs/torus.md [booksim-open]=docs/torus.md [netsim-speed]=docs/torus.md [published]=docs/torus.md [fft-steps]=docs/torus.md)
for t in $(bash "$tables" --list); do
	f=${home[$t]:-docs/benchmarks.md}
	if [ ! -f "$f" ]; then
		bad "no $f (for the table $t)"
	elif grep -qx "<!-- bench/tables.sh $t: generated from bench/results, do not edit -->" "$f"; then
		ok "$f holds the generated table $t"
	else
		bad "$f does not hold the generated table $t (<!-- bench/tables.sh $t: ... -->)"
	fi
done

docs=$(ls "$top"/README.md "$top"/docs/*.md 2>/dev/null)
if out=$(bash "$tables" --check $docs 2>&1); then
	ok "every generated table is what bench/tables.sh makes from bench/results now"
else
	bad "generated tables differ from bench/results:"
	echo "$out" | sed 's/^/#   /'
fi

# each block's first line: where and when its JSON was measured
n=0
while IFS= read -r l; do
	n=$((n + 1))
	[[ $l == *'From `bench/results/'*'.json`, '*@(measured 20[0-9][0-9]-*|records no date)* ]] ||
		bad "a generated table does not start with its JSON's date and machine: $l"
done < <(awk '/^<!-- bench\/tables.sh [a-z-]+: generated/ { getline; print FILENAME ": " $0 }' $docs)
[ $n -gt 0 ] && ok "the $n generated tables start with their JSON's date and machine"
[ $n -gt 0 ] || bad "no generated table in $docs"

finish
