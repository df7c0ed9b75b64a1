#!/bin/bash
# The benchmark figures the documentation quotes are bench/results/*.json's:
# every table bench/tables.sh makes appears in the docs (the torus model's in
# docs/torus.md, the others in docs/benchmarks.md), each generated block is
# what bench/tables.sh makes from the JSON now (a figure edited by hand, or
# JSON updated without the docs, fails), and each starts with the date and
# machine its JSON records. Figures quoted in prose carry their source in
# a block right under their paragraph:
#   <!-- figures: SOURCE
#   NUMBER = JQ FILTER
#   -->
# SOURCE is bench/results/NAME.json or a command printing JSON (run in a
# scratch directory with BIN first on PATH); each NUMBER must appear in the
# paragraph above and be the filter's value shown with NUMBER's decimals.
# usage: test_docs_figures.sh [ROOT [BIN]]   (ROOT: the tree to check,
#   default this one; BIN: where the tools are, default ROOT/build/prefix/bin)
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
tables=$(cd "$(dirname "$0")/../.." && pwd)/bench/tables.sh
cd "$top" || exit 2
. "$(dirname "$0")/lib.sh"

# where each table belongs
declare -A home=([netsim-validation]=docs/torus.md [netsim-matrix]=docs/torus.md [booksim]=docs/torus.md [booksim-open]=docs/torus.md [netsim-speed]=docs/torus.md [published]=docs/torus.md [fft-steps]=docs/torus.md)
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

# prose figures: one record per block (B file line source), its paragraph
# (P text) and its figures (F number filter)
blocks() {
	awk '
	function flush() { para = "" }
	/^(   |  | )?<!-- figures: / {
		src = $0; sub(/^ *<!-- figures: /, "", src)
		printf "B\t%s\t%d\t%s\nP\t%s\n", FILENAME, FNR, src, para
		inblock = 1; next
	}
	inblock && /^ *-->/ { inblock = 0; next }
	inblock {
		n = $0; sub(/^[ \t]*/, "", n); sub(/ = .*/, "", n); f = $0; sub(/^[^=]* = /, "", f)
		printf "F\t%s\t%s\n", n, f; next
	}
	/^[ \t]*$/ { flush(); next }
	{ para = para " " $0 }
	' "$@"
}
bin=${2:-$top/build/prefix/bin}
declare -A json
nfig=0 nall=0
while IFS=$'\t' read -r kind a b c; do
	case $kind in
	B)
		where="${a#"$top"/}:$b" src=$c
		if [ -z "${json[$src]+set}" ]; then
			case $src in
			bench/results/*.json) json[$src]=$(cat "$top/$src" 2>/dev/null) ;;
			*) json[$src]=$(cd "$tmp" && PATH="$bin:$PATH" bash -c "$src" 2>/dev/null </dev/null) ;;
			esac
			[ -n "${json[$src]}" ] || bad "$where: $src gives no JSON"
		fi ;;
	P) para=" $a " ;;
	F)
		nall=$((nall + 1))
		num=${a//,/} int=${a%%.*} dec=0
		[[ $num == *.* ]] && dec=$(( ${#a} - ${#int} - 1 ))
		if ! v=$(jq -ser "$b" <<< "${json[$src]}" 2> /dev/null); then
			bad "$where: $a: the filter $b gives nothing"
			continue
		fi
		shown=$(LC_ALL=C printf "%.${dec}f" "$v" 2> /dev/null) || shown="($v)"
		if ! [[ $para =~ [^0-9.,]${a//./\\.}([^0-9]|[.,][^0-9]) ]]; then
			bad "$where: $a is not in the paragraph above"
		elif [ "$shown" != "$num" ]; then
			bad "$where: the docs say $a, $src gives $shown ($b)"
		else
			nfig=$((nfig + 1))
		fi
		;;
	esac
done < <(blocks $docs)
# a source that reads standard input would eat the records still to come
want=$(blocks $docs | grep -c '^F')
[ "$nall" = "$want" ] || bad "$nall of the $want figures in prose were checked"
[ $nfig = $nall ] && ok "the $nfig figures in prose that carry a source are what it gives now"
[ $nall -gt 0 ] || bad "no figure in prose carries its source"

finish
