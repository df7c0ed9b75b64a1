#!/bin/bash
# README.md's commands, run as README says, and what README says they print.
#
# Which blocks run:
#   ```sh     run, in order, by one shell whose exports carry from block to
#             block, with `set -e -o pipefail`: every command must succeed.
#   ```text   right after a ```sh block: what that block prints. Each
#             non-empty line must be part of one line of the block's output
#             (stdout and stderr), blanks squeezed; a token `~N` matches a
#             number within 1% of N (a line with one is compared token by
#             token).
#   ```shell  and any other fence: shown, not run.
# Set-up commands (make demo, make check, make deps, make install, make
# uninstall; any `make`) stay out of ```sh blocks: this test runs inside
# `make check`, after `make`. So do `cd` (README's tour runs from one
# directory) and placeholders (=FILE, PROGRAM, ...: a ```sh command runs as
# written).
#
# The blocks run in a fresh directory that looks like a clean checkout: the
# repository's files (symlinks) and build/prefix (the staged tree, BINDIR's
# parent), nothing else of build/. Open MPI is let run as root
# (OMPI_ALLOW_RUN_AS_ROOT), as README tells root to do with
# --allow-run-as-root. It also checks that README's table of machine
# profiles lists every machines/*.ini and nothing else.
# usage: test_readme.sh BINDIR [README]
set -u
bindir=$(cd "${1:?usage: test_readme.sh BINDIR [README]}" && pwd) || exit 2
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=$(cd "$(dirname "${2:-$top/README.md}")" && pwd)/$(basename "${2:-README.md}")
. "$(dirname "$0")/lib.sh"

# ---- the blocks: block.N (commands), want.N (expected output) ----------------
mkdir -p "$tmp/blocks"
awk -v dir="$tmp/blocks" '
	/^```/ {
		if (kind != "") { kind = ""; last_sh = (prev == "sh"); next }
		kind = substr($0, 4); sub(/[ \t].*/, "", kind)
		if (kind == "sh") { n++; prev = "sh"; file = dir "/block." n; printf "" > file }
		else if (kind == "text" && last_sh) { prev = "text"; file = dir "/want." n; printf "" > file }
		else if (kind == "text") { print "text block at line " NR " follows no sh block" > (dir "/errors") ; file = "" }
		else { prev = kind; file = "" }
		last_sh = 0
		next
	}
	kind != "" && file != "" { print > file }
	kind == "" && NF > 0 { last_sh = 0 }
' "$readme"
[ -s "$tmp/blocks/errors" ] && while read -r e; do bad "README: $e"; done < "$tmp/blocks/errors"
nblocks=$(ls "$tmp/blocks" | grep -c '^block\.')
if [ "$nblocks" = 0 ]; then
	bad "README has no \`\`\`sh block: its tour's commands must be in \`\`\`sh blocks (see this test's header)"
fi

# ---- rules for what a ```sh block may hold -------------------------------------
for ((i = 1; i <= nblocks; i++)); do
	b=$tmp/blocks/block.$i
	grep -nE '(^|[;&|(]\s*)make( |$)' "$b" | while IFS= read -r l; do
		echo "block $i: a set-up command in a \`\`\`sh block (put it in \`\`\`shell): $l"; done >> "$tmp/rules"
	grep -nE '(^|[;&|(]\s*)cd( |$)' "$b" | while IFS= read -r l; do
		echo "block $i: 'cd' (the tour runs from one directory): $l"; done >> "$tmp/rules"
	grep -nE '=(FILE|PATH|NAME|DIR)\b|\b(PROGRAM|ARGS)\b|<[a-z]+>|\.\.\.' "$b" | while IFS= read -r l; do
		echo "block $i: a placeholder (commands run as written): $l"; done >> "$tmp/rules"
done
if [ -s "$tmp/rules" ]; then
	while IFS= read -r l; do bad "README $l"; done < "$tmp/rules"
elif [ "$nblocks" != 0 ]; then
	ok "README's $nblocks sh blocks hold no set-up command, cd or placeholder"
fi

# ---- a clean checkout with the staged tree ------------------------------------
work=$tmp/checkout
mkdir -p "$work/build"
for f in "$top"/* "$top"/.[!.]*; do
	case ${f##*/} in build | .git | '.[!.]*') continue ;; esac
	ln -s "$f" "$work/${f##*/}"
done
ln -s "$(dirname "$bindir")" "$work/build/prefix"
env -i HOME="$tmp" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 bash -c 'export -p' > "$tmp/env.0"

# squeeze: blanks to one space, none at either end
squeeze() { sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$1"; }

# found LINE OUTFILE: the expected line is part of a line of the output
found() {
	local want=$1 out=$2
	if [[ $want != *'~'* ]]; then
		grep -qF -- "$want" "$out"
		return
	fi
	awk -v want="$want" '
		function near(tok, e) { e = substr(e, 2) + 0
			return tok ~ /^-?[0-9.]+$/ && (e == 0 ? tok + 0 == 0 : (tok - e) / e <= 0.01 && (e - tok) / e <= 0.01) }
		BEGIN { nw = split(want, w, " ") }
		{ for (s = 1; s + nw - 1 <= NF; s++) {
			m = 1
			for (k = 1; k <= nw && m; k++)
				m = (w[k] ~ /^~/) ? near($(s + k - 1), w[k]) : $(s + k - 1) == w[k]
			if (m) { hit = 1; exit } } }
		END { exit !hit }' "$out"
}

# ---- run them -------------------------------------------------------------------
for ((i = 1; i <= nblocks; i++)); do
	b=$tmp/blocks/block.$i out=$tmp/out.$i
	first=$(grep -m1 -v '^\s*$' "$b")
	(cd "$work" && timeout 600 bash -c 'set -e -o pipefail; . "$1"; . "$2"; export -p > "$3"' \
		_ "$tmp/env.$((i - 1))" "$b" "$tmp/env.$i") > "$out" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		bad "README block $i ($first ...) exits $rc: $(tail -5 "$out")"
		cp "$tmp/env.$((i - 1))" "$tmp/env.$i"
		continue
	fi
	ok "README block $i runs ($(grep -cv '^\s*$' "$b") commands from '$first')"
	[ -f "$tmp/blocks/want.$i" ] || continue
	squeeze "$out" > "$out.sq"
	missing=0
	while IFS= read -r want; do
		[ -n "$want" ] || continue
		if ! found "$want" "$out.sq"; then
			bad "README block $i does not print what README shows: '$want'"
			missing=$((missing + 1))
		fi
	done < <(squeeze "$tmp/blocks/want.$i")
	if [ $missing = 0 ]; then
		ok "README block $i prints the $(grep -cv '^\s*$' "$tmp/blocks/want.$i") lines README shows"
	else
		echo "# block $i printed:"
		sed 's/^/#   /' "$out" | head -40
	fi
done

# ---- the table of machine profiles ----------------------------------------------
listed=$(grep -oE '^\| `[a-z0-9-]+` \|' "$readme" | sed -E 's/^\| `([a-z0-9-]+)` \|/\1/' | sort -u)
there=$(cd "$top/machines" && ls *.ini | sed 's/\.ini$//' | sort)
if [ "$listed" = "$there" ]; then
	ok "README's table of machine profiles lists machines/*.ini: $(echo $there)"
else
	bad "README's table of machine profiles ($(echo $listed)) is not machines/*.ini ($(echo $there))"
fi

finish
