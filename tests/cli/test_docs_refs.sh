#!/bin/bash
# The user documentation (README.md, docs/, man/, NEWS) names nothing outside
# the repository and no work history:
#   - no relative path out of the tree (`../x`; an elided `.../x` is fine);
#   - no notes kept outside it (HARDWARE.md, DESIGN.md: any *.md that is
#     not a file of the repository);
#   - no path of a developer's checkout (/work/..., /home/..., /root/...);
#   - every repository path it names exists (`tests/unit/test_torus.c`;
#     names with a placeholder, NAME or FILE or `*`, are patterns);
#   - every relative link of a Markdown page points at a file that exists;
#   - no issue or pull-request number ("issue 12", "#12", "PR 12").
# usage: test_docs_refs.sh [ROOT]   (ROOT: the tree to check, default this one)
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
cd "$top" || exit 2
. "$(dirname "$0")/lib.sh"

files=$(ls README.md NEWS docs/*.md man/* 2>/dev/null)
[ -n "$files" ] || { bad "no README.md, NEWS, docs/*.md or man/* in $top"; exit 1; }
for f in README.md NEWS; do [ -f "$f" ] || bad "no $f"; done
[ -n "$(ls docs/*.md 2>/dev/null)" ] || bad "no docs/*.md"

# hits NAME REGEX [FILTER]: lines of the documentation matching REGEX (ERE),
# less those FILTER (ERE) matches, each reported
hits() {
	local name=$1 re=$2 filter=${3:-^$^} n
	n=$(grep -nE -- "$re" $files | grep -vE -- "$filter" | tee "$tmp/hits" | wc -l)
	if [ "$n" = 0 ]; then
		ok "no $name"
	else
		while IFS= read -r l; do bad "$name: $l"; done < "$tmp/hits"
	fi
}

hits "path out of the tree (../)" '(^|[^.])\.\./'
hits "note outside the repository" '\b(HARDWARE|DESIGN)\.md\b'
hits "path of a developer's checkout" '(^|[^A-Za-z0-9_.-])/(work|home|root)/' '/root/counterlab'
hits "issue or pull-request number" '\b([Ii]ssues?|PR|[Pp]ull request)[ #]*[0-9]+|(^|[^&A-Za-z0-9_/])#[0-9]+\b'

# repository paths and Markdown files named in the text
missing=0
for f in $files; do
	dir=$(dirname "$f")
	grep -oE '(^|[ `("'"'"'\[])(\.\./)*(framework|sim_backends|backends|tests|bench|utils|machines|compat|components|include|man|docs|examples|\.ci)/[A-Za-z0-9_./{},-]*[A-Za-z0-9_}]' "$f" |
		sed -E 's/^[ `("'"'"'\[]//' | sort -u | while IFS= read -r p; do
		case $p in *NAME* | *FILE* | *X* | */N* | *'*'* | *'{'*) continue ;; esac
		[ -e "$p" ] || [ -e "$dir/$p" ] || echo "$f names $p, which is not in the repository"
	done
	grep -oE '[A-Za-z0-9_./-]+\.md\b' "$f" | sort -u | while IFS= read -r p; do
		[ -e "$p" ] || [ -e "$dir/$p" ] || [ -e "docs/$p" ] || echo "$f names $p, which is not in the repository"
	done
	grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | sort -u | while IFS= read -r p; do
		case $p in http://* | https://* | mailto:*) continue ;; esac
		[ -e "$dir/$p" ] || echo "$f links to $p, which is not there"
	done
done > "$tmp/hits.paths"
if [ -s "$tmp/hits.paths" ]; then
	while IFS= read -r l; do bad "$l"; done < "$tmp/hits.paths"
else
	ok "every repository path, Markdown file and link the documentation names exists"
fi

finish
