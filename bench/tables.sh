#!/bin/bash
# The tables of figures the docs quote, made from bench/results/*.json, so
# that a figure in the docs is always what the committed results say.
#
#   bash bench/tables.sh FILE.md...          rewrite the generated blocks
#   bash bench/tables.sh --check FILE.md...  exit 1 (with a diff) where a
#                                            block differs from the JSON
#   bash bench/tables.sh --list              the tables this script makes
#
# A generated block is the lines between
#   <!-- bench/tables.sh NAME: generated from bench/results, do not edit -->
#   <!-- end NAME -->
# Each starts with the date and machine the JSON records. After
# `make bench UPDATE=1`, run `bash bench/tables.sh docs/*.md` and commit
# the JSON and the docs together (tests/cli/test_docs.sh checks them).
set -euo pipefail
R=$(cd "$(dirname "$0")" && pwd)/results
command -v jq > /dev/null || { echo "bench/tables.sh: needs jq (make deps installs it)" >&2; exit 2; }

# jq helpers: f(d) a number with d decimals; pct(d) a fraction as a percentage;
# origin: the line that says where and when the JSON was measured.
JQ_DEFS='
def f(d): if . == null then "-" else
	(. * pow(10; d) | round) as $i | ($i | fabs | tostring) as $s
	| (if d == 0 then $s else
		(("0" * ((d + 1 - ($s | length)) | if . > 0 then . else 0 end)) + $s) as $p
		| $p[0:($p | length) - d] + "." + $p[($p | length) - d:] end)
	| (if $i < 0 then "-" + . else . end) end;
def pct(d): (. * 100 | f(d)) + "%";
def yn: if . then "yes" else "no" end;
def median_range(what): sort | "\(what): median \((.[(length - 1) / 2 | floor] + .[length / 2 | floor]) / 2 | f(0))x, \(.[0] | f(0))x..\(.[-1] | f(0))x";
def origin($file): "From `" + $file + "`, "
	+ (if .date then "measured " + (.date | sub("T.*"; "")) else "which records no date" end)
	+ (if .machine then " on " + (.machine | "\(.cpu), \(.nproc) CPUs, \(.arch), Linux \(.kernel)")
	   else " and no machine" end) + ".";
'

table() { # NAME: the block's lines on stdout
	case $1 in
	netsim-validation)
		jq -r "$JQ_DEFS"'origin("bench/results/netsim_validation.json"), "",
			"| class | machine | pattern | flow / packet | within 25% | wall s flow / packet |",
			"|---|---|---|---|---|---|",
			(.runs[] | "| \(.class) | \(.machine) \(.torus)\(if .ppn > 1 then " ppn \(.ppn)" else "" end) | `\(.pattern)` | \(.flow_over_packet | f(2)) | \(.within_25pct | yn) | \(.flow_wall_s) / \(.packet_wall_s) |"),
			"",
			"Error band of the flow engine'"'"'s network time per class (flow / packet, min..max over the runs above): "
			+ ([.bands | to_entries[] | "\(.key) \(.value.min | f(2))..\(.value.max | f(2)) (\(.value.within_25pct) of \(.value.runs) within 25%)"] | join("; ")) + "."' \
			"$R/netsim_validation.json" ;;
	netsim-matrix)
		jq -r "$JQ_DEFS"'origin("bench/results/netsim_validation.json"), "",
			"| class | cases | flow / packet | within 25% |",
			"|---|---|---|---|",
			(.matrix.bands | to_entries[] | "| \(.key) | \(.value.runs) | \(.value.min | f(2))..\(.value.max | f(2)) | \(.value.within_25pct) |"),
			"",
			"All: \(.matrix.within_25pct) of \(.matrix.compared) within 25% (against the packet engine with BookSim2'"'"'s router: \(.matrix.booksim_router_within_25pct)). Outside 25%: "
			+ ([.matrix.cases[] | select(.held_out | not) | select(.within_25pct | not) | "\(.torus) \(.class) \(.flow_over_packet | f(2))"] | join(", ")) + ".",
			"Held out (cases chosen after the mechanisms were settled): \(.matrix.held_out.within_25pct) of \(.matrix.held_out.compared) within 25%."' \
			"$R/netsim_validation.json" ;;
	booksim)
		jq -r "$JQ_DEFS"'.booksim.summary_seed1 as $s1 | origin("bench/results/netsim_validation.json"), "",
			"| packet engine policies | cases within 10% | within 20% | time ratio ours / BookSim2 |",
			"|---|---|---|---|",
			(.booksim.summary[] | "| \(["own defaults", "BookSim'"'"'s VCs and allocators (`dateline=1 round_robin=2 inj_vcs=2`)", "and `tie=random flow_unit=chunk ports=split`", "row 3 and `speedup=2` (crossbar at twice the link rate)", "row 3 and `interleave=1` (VCs share a link chunk by chunk)", "row 3 and both (BookSim'"'"'s router)"][.policies]) | \(.within_10pct) of \(.cases) | \(.within_20pct) | \(.min_ratio | f(2))..\(.max_ratio | f(2)) |"),
			"",
			([.booksim.cases[] | select(.per_link)] | "Per-link counts compared on \(length) cases (odd rings, permutations): \(map(.links_compared) | add) links, \(map(.links_differing) | add) differing."),
			([.booksim.cases[] | select(.per_link | not) | select(.same_traffic == true)] | "Total chunks compared on \(length) more (even rings): \(map(select(.chunks_booksim != .chunks_packet_engine)) | length) differing."),
			([.booksim.cases[] | select(.held_out | not) | select(.same_traffic == "statistical")] | "\(length) cases of uniform or hot-spot traffic, drawn by each simulator from its own generator, agree only statistically: their ratio is our mean over BookSim2'"'"'s, each of seeds 1 to 5 (with seed 1 alone on both sides, BookSim'"'"'s router has \($s1.within_10pct) of \($s1.cases) within 10%, \($s1.within_20pct) within 20%, \($s1.min_ratio | f(2))..\($s1.max_ratio | f(2)))."),
			"Wall time of all cases: BookSim2 \(([.booksim.cases[].booksim_wall_s] | add) / 60 | f(1)) minutes, the packet engine \([.booksim.cases[].packet_engine_wall_s] | add | f(0)) s; BookSim2 / packet engine per case \([.booksim.cases[] | select(.held_out | not) | select(.same_traffic != false) | .wall_ratio] | median_range("(the \(length) compared)"))."
			, (.booksim.summary_held_out as $h | "Held out (\($h.cases) cases chosen after the mechanisms and their defaults were settled, never used to change them), BookSim2'"'"'s router: \($h.within_10pct) of \($h.cases) within 10%, \($h.within_20pct) within 20%, \($h.min_ratio | f(2))..\($h.max_ratio | f(2)); wall ratio \([.booksim.cases[] | select(.held_out) | .wall_ratio] | median_range("per case")).")
			, ([.booksim.cases[] | select(.booksim_wall_kept == true)] | select(length > 0)
				| "\(length) of these BookSim2 wall times were read back from runs of an earlier sitting: those cases'"'"' wall ratios compare two sittings.")' \
			"$R/netsim_validation.json" ;;
	booksim-open)
		jq -r "$JQ_DEFS"'origin("bench/results/netsim_validation.json"), "",
			"| open loop | BookSim2 stable to / unstable at | its throughput | ours stable to / unstable at | our throughput | ours / BookSim2 | latency ours / BookSim2, load 0.1 .. highest both stable |",
			"|---|---|---|---|---|---|---|",
			(.booksim.open_loop[] | ([.loads[] | select(.booksim_unstable | not) | select(.unstable | not)]) as $st
			 | "| \(.torus) \(.traffic) | \(.booksim_saturation.stable_to) / \(.booksim_saturation.unstable_at // "-") | \(.booksim_saturation.throughput | f(3)) | \(.saturation.stable_to) / \(.saturation.unstable_at // "-") | \(.saturation.throughput | f(3)) | \(.throughput_ratio | f(3)) | \($st[0].latency_ratio | f(2)) .. \($st[-1].latency_ratio | f(2)) (\($st[-1].load)) |")' \
			"$R/netsim_validation.json" ;;
	netsim-speed)
		jq -r "$JQ_DEFS"'origin("bench/results/netsim.json"), "",
			"| run | engine | CPU s | target s | peak memory GB | target GB | met |",
			"|---|---|---|---|---|---|---|",
			(.fft512 | "| 512-node FFT study, both maps (`\(.pattern)` on \(.torus), ppn \(.ppn)) | flow | \(.study_s) | \(.target_s) | - | - | \(.meets_target | yn) |"),
			(.fft512_packet | "| the same, both phases, MPI routing (ABCDET \(.ABCDET.model_s) s, columns map \(.columns.model_s) s) | packet | \(.study_s) | \(.target_s) | - | - | \(.meets_target | yn) |"),
			(.perm4096_packet // empty | "| random permutation `\(.pattern)` on \(.torus) (4,096 nodes) | packet | \(.ABCT.model_s) | \(.target_s) | - | - | \(.meets_target | yn) |"),
			(.sequoia | "| Sequoia `\(.pattern)` (\(.torus), \(.nodes) nodes, ppn \(.ppn)) | flow | \(.ABCDET.model_s | f(1)) | \(.target_s) | \(.max_rss_gb) | \(.target_gb) | \(.meets_target | yn) |"),
			(.sequoia_rows | "| Sequoia `\(.pattern)` | flow | \(.model_s | f(1)) | \(.target_s) | \(.max_rss_gb) | \(.target_gb) | \(.meets_target | yn) |"),
			"",
			"Each flow-engine run is timed against a baseline in the same run that walks every message hop by hop (Sequoia: sampled on 1/64 of the groups and scaled up): 512-node FFT \(.fft512.ABCDET.baseline_s) s (ABCDET) and \(.fft512.columns.baseline_s) s (columns), Sequoia \(.sequoia.ABCDET.baseline_s | f(0)) s; the same chunk-hops in the unsampled runs: \(if .fft512.ABCDET.chunk_hops == .fft512.ABCDET.baseline_chunk_hops and .fft512.columns.chunk_hops == .fft512.columns.baseline_chunk_hops then "yes" else "NO" end)."' \
			"$R/netsim.json" ;;
	gemini)
		jq -r "$JQ_DEFS"'origin("bench/results/gemini.json"), "",
			"| sampling all \(.registers) tile counters of a router | median us | minimum us | in system calls | target us | met |",
			"|---|---|---|---|---|---|",
			"| libgpcd (`gpcd_context_read_mmr_vals`) | \(.gpcd_sample_ns / 1000 | f(2)) | \(.gpcd_sample_ns_min / 1000 | f(2)) | \(.gpcd_ratio_to_baseline | f(2)) | \(.target_ns / 1000) | \(.gpcd_meets_target | yn) |",
			"| PAPI (\(.papi_sample)) | \(.papi_sample_ns / 1000 | f(2)) | \(.papi_sample_ns_min / 1000 | f(2)) | \(.papi_ratio_to_baseline | f(2)) | \(.target_ns / 1000) | \(.papi_meets_target | yn) |",
			"",
			"Baseline: \(.baseline), \(.baseline_ns / 1000 | f(2)) us in the same run; libgpcd is \(.gpcd_speedup_over_real) times faster than the \(.real_machine_ns / 1000 | f(0)) us the real machine'"'"'s ioctl took."' \
			"$R/gemini.json" ;;
	pmpi)
		jq -r "$JQ_DEFS"'origin("bench/results/pmpi.json"), "",
			"| ranks on | plain ns per 8-byte message (least) | added by the interposer, paired ns | paired, without the interposer (noise) | target ns | met |",
			"|---|---|---|---|---|---|",
			"| one host | \(.plain_ns_per_message."8" | f(1)) | \(.paired_added_ns_per_message_8 | f(1)) | \(.paired_without_interposer_ns_8 | f(1)) | \(.target_added_ns_8) | \(.meets_target | yn) |",
			(.two_hosts // empty | "| two hosts (\(.transport)) | \(.plain_ns_per_message."8" | f(1)) | \(.paired_added_ns_per_message_8 | f(1)) | \(.paired_without_interposer_ns_8 | f(1)) | - | - |"),
			"",
			"Runs: one host, paired added ns per run \([.interposed_runs[].paired_added_ns_8 | f(1)] | join(", ")); without the interposer \([.plain_runs[].paired_added_ns_8 | f(1)] | join(", "))."' \
			"$R/pmpi.json" ;;
	overflow)
		jq -r "$JQ_DEFS"'origin("bench/results/overflow.json"), "",
			"| event | unit | events per cycle | events past the threshold, mean / max | cycles from crossing to handler, mean / max |",
			"|---|---|---|---|---|",
			((.fast + .slow)[] | to_entries[] | "| \(.key) | \(.value.unit) | \(.value.rate | f(2)) | \(.value.overshoot_events.mean | f(2)) / \(.value.overshoot_events.max) | \(.value.latency_cycles.mean | f(1)) / \(.value.latency_cycles.max) |"),
			"",
			"One delivery costs \(.cost.delivery_ns / 1000 | f(1)) us against \(.cost.bare_signal_ns / 1000 | f(1)) us for a bare signal round trip in the same run (ratio \(.cost.ratio_to_bare_signal | f(2)); \(.cost.method))."' \
			"$R/overflow.json" ;;
	read-latency)
		jq -r "$JQ_DEFS"'origin("bench/results/read_latency.json"), "",
			"| component | live threads | clock | PAPI_read ns | ratio to a perf read() | target | met |",
			"|---|---|---|---|---|---|---|",
			(.runs[] | "| \(.component) | \(.live_threads) | `\(.machine_spec)` | \(.papi_read_ns | f(1)) | \(.ratio | f(3)) | \(.target) | \(.ratio <= .target | yn) |"),
			"",
			"Instructions per PAPI_read under callgrind (target for core with 4 events, host clock at a native pace: \(.callgrind.target_core_4_events)): "
			+ ([.callgrind.runs[] | "\(.component), \(.live_threads) thread\(if .live_threads > 1 then "s" else "" end), \(.mode) clock\(if .clock_step_ns then " at \(.clock_step_ns) ns a read" elif .mode == "host" then " at callgrind'"'"'s pace" else "" end): \(.instructions_per_read)"] | join("; ")) + "."
			+ (if .callgrind.native_host_read_ns then " Natively a host-clock read took \(.callgrind.native_host_read_ns | f(1)) ns in this run." else "" end),
			"Opening one simulated node (`\(.node_memory.machine_spec)`) grows RSS by \(.node_memory.node_rss_kib / 1024 | f(1)) MiB and the heap by \(.node_memory.node_heap_kib / 1024 | f(1)) MiB."' \
			"$R/read_latency.json" ;;
	host)
		jq -r "$JQ_DEFS"'origin("bench/results/host.json"), "",
			"| PAPI_read of `\(.event)` | median ns |",
			"|---|---|",
			"| counterlab'"'"'s libpapi (`COUNTERLAB_MACHINE=host`) | \(.counterlab_papi_read_ns | f(0)) |",
			"| Debian'"'"'s libpapi 7.0 (perf_event component)\(if .stock_libpfm then ", with an upstream libpfm4" else "" end) | \(.stock_papi_read_ns // null | f(0)) |",
			"| a bare `read()` of the same perf group | \(.raw_read_ns | f(0)) |",
			"",
			"The nearest stock read measured without an upstream libpfm4 (a bare `read()` of the same group, then the stock PAPI_read of a software-defined counter): \(.stock_sde_estimate_read_ns | f(0)) ns, \((.stock_sde_estimate_read_ns / .stock_papi_read_ns - 1) | fabs | pct(1)) from the stock perf_event read.",
			"Ours over stock: \(.ratio_to_stock | f(3)) (\(.ratio_to_stock_per_read | f(3)) taking each process'"'"'s own `read()` as its unit); target \(.target), met: \(.meets_target | yn)."' \
			"$R/host.json" ;;
	multiplex)
		jq -r "$JQ_DEFS"'origin("bench/results/multiplex.json"), "",
			"\(.events) events, \(.run_cycles) cycles, phase length L = \(.phase_cycles) cycles; error: \(.error), maximum over the events.", "",
			"| profile | turns | period | normalized | round-robin | target | met |",
			"|---|---|---|---|---|---|---|",
			(.cases[] | "| \(.profile) | \(if .turns == "deadline" then "exact" else "jittered +-30%" end) | L\(.period_of_phase | sub("^1/1$"; "") | sub("^1"; "")) | \(.normalized_max_err | pct(2)) | \(.roundrobin_max_err | pct(2)) | \(if .target then (.target | pct(0)) else "-" end) | \(if .target then (.meets_target | yn) else "-" end) |")' \
			"$R/multiplex.json" ;;
	emulated)
		jq -r "$JQ_DEFS"'origin("bench/results/emulated.json"), "",
			"| program | native CPU s | under counterlab-run | slowdown | QEMU alone | QEMU, plugin doing nothing | guest MIPS | instructions | loads | stores | L1 load misses | L2 load misses | L1 store misses |",
			"|---|---|---|---|---|---|---|---|---|---|---|---|---|",
			(.runs[] | "| `\(.program)` | \(.native_cpu_s) | \(.emulated_cpu_s) | \(.slowdown | f(1)) | \(.qemu_alone_slowdown | f(1)) | \(.qemu_callbacks_slowdown | f(1)) | \(.guest_mips | f(0)) | \(.cachegrind | [.Ir, .Dr, .Dw, .D1mr, .DLmr, .D1mw] | map(.[2] | pct(2)) | join(" | ")) |"),
			"",
			"The last six columns: the plugin (policy `cachegrind`) against valgrind'"'"'s cachegrind, relative difference; \(.note)."' \
			"$R/emulated.json" ;;
	published)
		# a model figure: a number (2 decimals, 3 below 2), a list or
		# named numbers; sources numbered in order of appearance
		jq -r "$JQ_DEFS"'def fig: if type == "number" then (if . == floor then tostring elif fabs < 2 then f(3) else f(2) end)
			elif type == "array" then map(fig) | join(", ")
			else to_entries | map("\(.key) \(.value | fig)") | join(", ") end;
			([.rows[].source] | reduce .[] as $s ([]; if index([$s]) then . else . + [$s] end)) as $src
			| origin("bench/results/published.json"), "",
			"| experiment | published | flow engine | packet engine | meets it |",
			"|---|---|---|---|---|",
			(.rows[] | .source as $s | "| \(.experiment) [\($src | index([$s]) + 1)] | \(.published) | \(.flow | fig) | \(.packet | fig) | \(.meets | yn) |"),
			"",
			"Sources: " + ([range($src | length) as $i | "[\($i + 1)] \($src[$i])"] | join("; ")) + ".",
			"Commands: " + ([.rows[].commands] | unique | map("`" + . + "`") | join("; ")) + "."' \
			"$R/published.json" ;;
	fft-steps)
		# a step's ms, and what it is made of when that is not one kind
		jq -r "$JQ_DEFS"'def ms: . * 1000 | f(3);
			def step: (.total_s | ms) + ([["network", .network_s], ["on-node", .onnode_s], ["compute", .compute_s]]
				| map(select(.[1] > 0)) | if length == 1 then " (\(.[0][0]))"
				  elif length > 1 then " (" + (map("\(.[1] | ms) \(.[0])") | join(", ")) + ")" else "" end);
			origin("bench/results/published.json"), "",
			"| step (ms) | ABCDET | columns on one node |",
			"|---|---|---|",
			(.fft_steps_flow | [.ABCDET, .columns] | transpose[] | "| \(.[0].step) | \(.[0] | step) | \(.[1] | step) |")' \
			"$R/published.json" ;;
	*) echo "bench/tables.sh: no table '$1' (bash bench/tables.sh --list)" >&2; return 2 ;;
	esac
}
TABLES="netsim-validation netsim-matrix booksim booksim-open netsim-speed published fft-steps gemini pmpi overflow read-latency host multiplex emulated"

regen() { # FILE: the file with every generated block made anew, on stdout
	local line name=
	while IFS= read -r line || [ -n "$line" ]; do
		if [ -z "$name" ]; then
			printf '%s\n' "$line"
			if [[ $line =~ ^'<!-- bench/tables.sh '([a-z-]+)': generated' ]]; then
				name=${BASH_REMATCH[1]}
				table "$name" || return 2
			fi
		elif [ "$line" = "<!-- end $name -->" ]; then
			printf '%s\n' "$line"
			name=
		fi
	done < "$1"
	[ -z "$name" ] || { echo "bench/tables.sh: $1: no '<!-- end $name -->'" >&2; return 2; }
}

check=0
case ${1:-} in
--list) echo "$TABLES"; exit 0 ;;
--check) check=1; shift ;;
-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -gt 0 ] || { echo "usage: bash bench/tables.sh [--check] FILE.md..." >&2; exit 2; }
rc=0
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.diff"' EXIT
for f in "$@"; do
	regen "$f" > "$tmp" || exit 2
	cmp -s "$f" "$tmp" && continue
	if [ $check = 1 ]; then
		echo "bench/tables.sh: $f: generated tables differ from bench/results (run: bash bench/tables.sh $f)"
		diff -u "$f" "$tmp" | sed -n '3,40p'
		rc=1
	else
		cp "$tmp" "$f.tmp" && mv "$f.tmp" "$f"
		echo "bench/tables.sh: updated $f"
	fi
done
exit $rc
