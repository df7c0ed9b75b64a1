# What the command-line tests share (sourced): a scratch directory $tmp,
# removed at exit; ok and bad, one line per check; finish, the closing
# line and the exit status (0: no check failed).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
finish() {
	echo "$(basename "$0" .sh): $fails failed"
	[ "$fails" = 0 ]
}
