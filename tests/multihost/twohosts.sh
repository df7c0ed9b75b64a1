#!/bin/bash
# Two hosts on one machine, for running MPI programs across hosts: two
# network namespaces joined by a veth pair (10.77.0.1 and 10.77.0.2), each
# with its own hostname (h1, h2; a UTS namespace per daemon), and Open MPI
# launched from h1's network (hostname "launch") through an agent that
# starts each host's daemon in its namespaces. Open MPI's session
# directories go under NAME's own directory: they are named by hostname,
# which two runs at once would share. Needs root. Namespaces are
# entered with nsenter, not `ip netns exec` (nor `ip -n`), which cannot
# remount / in a chroot (make fresh-check's root filesystem). Sourced by the
# multi-host test and bench/run.sh; run as
#   twohosts.sh agent NAME HOST COMMAND...
# it is that agent (Open MPI's --mca plm_rsh_agent).
#
#   twohosts_up NAME        makes the namespaces NAME-h1 and NAME-h2
#   twohosts_mpirun NAME MPIRUN-ARGS...   mpirun across them (hostfile: 8 slots each)
#   twohosts_down NAME      ends their processes and removes them
TWOHOSTS_SH=$(readlink -f "${BASH_SOURCE[0]}")

if [ "${1:-}" = agent ]; then
	# Open MPI hands the daemon's command line as words for a remote shell
	name=$2 host=$3
	shift 3
	case $host in
	h1 | h2) ;;
	*) echo "twohosts agent: no host $host (h1 or h2)" >&2; exit 1 ;;
	esac
	exec nsenter --net="/run/netns/$name-$host" unshare --uts \
		sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
fi

in_ns() { # NAMESPACE COMMAND...
	nsenter --net="/run/netns/$1" "${@:2}"
}

twohosts_up() {
	local n=$1 f="${TMPDIR:-/tmp}/$1" veth
	veth=$(printf %s "$1" | tail -c 13) # interface names: 15 characters at most
	# ip netns mounts /run/netns on itself the first time: undone at the
	# end when it was not so before (a chroot's root must unmount cleanly)
	mountpoint -q /run/netns 2>/dev/null || touch "$f.mounted"
	ip netns add "$n-h1" && ip netns add "$n-h2" &&
		ip link add "${veth}a" type veth peer name "${veth}b" &&
		ip link set "${veth}a" netns "$n-h1" && ip link set "${veth}b" netns "$n-h2" &&
		in_ns "$n-h1" ip addr add 10.77.0.1/24 dev "${veth}a" &&
		in_ns "$n-h2" ip addr add 10.77.0.2/24 dev "${veth}b" &&
		in_ns "$n-h1" ip link set lo up && in_ns "$n-h2" ip link set lo up &&
		in_ns "$n-h1" ip link set "${veth}a" up && in_ns "$n-h2" ip link set "${veth}b" up &&
		printf 'h1 slots=8\nh2 slots=8\n' > "$f.hosts" &&
		mkdir -p "$f.ompi"
}

# The ranks yield the CPU while they wait: where ranks outnumber cores a
# busy-polling rank holds up the other host's TCP traffic (a ping-pong
# took 1.8 ms per message on 2 shared cores, 23 us yielding).
twohosts_mpirun() {
	local n=$1 f="${TMPDIR:-/tmp}/$1"
	shift
	in_ns "$n-h1" unshare --uts sh -c 'hostname launch && exec "$@"' sh \
		timeout -k 10 "${TWOHOSTS_TIMEOUT:-300}" \
		mpirun --allow-run-as-root --hostfile "$f.hosts" \
		--mca plm_rsh_agent "bash $TWOHOSTS_SH agent $n" --mca orte_tmpdir_base "$f.ompi" \
		--mca btl tcp,self,vader --mca btl_tcp_if_include 10.77.0.0/24 \
		--mca oob_tcp_if_include 10.77.0.0/24 --mca mpi_yield_when_idle 1 "$@"
}

twohosts_down() {
	local n=$1 f="${TMPDIR:-/tmp}/$1" h p
	for h in h1 h2; do
		ip netns list 2>/dev/null | grep -q "^$n-$h\b" || continue
		for p in $(ip netns pids "$n-$h" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		ip netns del "$n-$h"
	done
	if [ -e "$f.mounted" ] && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
		umount /run/netns 2>/dev/null
	fi
	rm -rf "$f.hosts" "$f.mounted" "$f.ompi"
}
