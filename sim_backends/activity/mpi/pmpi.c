/* libcounterlab-mpi: live MPI traffic as an activity source of the
 * simulated machine (docs/mpi.md).
 *
 * Interposition. The MPI calls below are the standard PMPI wrappers: each
 * notes the messages the calling rank sends (size, destination's world
 * rank) and then calls the real PMPI_ function. Every message is routed
 * by clab_live_message on the torus of the machine COUNTERLAB_MACHINE
 * names, with the machine's protocol (eager messages deterministic,
 * rendezvous ones dynamic, collectives on the collective VCs), and lands
 * in the counter blocks of the nodes it touches. Only the sender counts a
 * message, so each is counted once.
 *
 * Shared counter state. Every host (shared-memory domain: the ranks with
 * one processor name) keeps the blocks of all the machine's simulated
 * nodes in one MPI_Win_allocate_shared window of its ranks, wherever the
 * map places them: a rank adds with atomic instructions straight into its
 * host's blocks (the block's layout keeps what senders and receivers add
 * in different cache lines, torus.h), so a count is in its host's block
 * before the message that caused it leaves. With several hosts, what the
 * ranks of the other hosts added crosses at the world barriers that end
 * the phases (below): each host's lowest rank (its lead) hands out what
 * its host added since the last barrier, takes in the others', and a read
 * sums the two. No one-sided call crosses hosts (Debian's Open MPI makes
 * no window over TCP unless told to emulate one, and an accumulate would
 * cost a round trip per message); no window spans them.
 * COUNTERLAB_MPI_DOMAINS=K splits each host's ranks into K domains (by
 * rank) to run the several-hosts path on one host.
 *
 * Collectives are modelled as these messages (each rank its own share):
 * all-to-all(v) and allgather: one message to every other member;
 * broadcast: a binomial tree from the root; reduce: the binomial tree
 * towards the root; allreduce: reduce to the first member, then
 * broadcast; barrier: an allreduce of empty messages; gather and scatter:
 * straight to or from the root. BG/Q runs broadcast, reduce, allreduce and
 * barrier on its collective network: those messages use the world or the
 * sub-communicator collective VC; the rest, like point-to-point, pick by
 * size; an all-to-all(v)'s empty blocks are no messages. Persistent
 * requests are not observed.
 *
 * Threads. Ranks may send from several threads (MPI_THREAD_MULTIPLE):
 * the plans and the phase's flows are this rank's and change under
 * `lock`; a world barrier's phase runs under `phase_lock`, its
 * collectives on a duplicate of the world of the layer's own (the
 * program's collectives on the world, in another thread, are not
 * paired with them). */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"
#include "counterlab/live_mpi.h"

#define WORDS (sizeof(clab_live_node) / sizeof(uint64_t))
#define PLANS 256     /* message plans kept (send_world) */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER, phase_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	int on;
	MPI_Comm world;      /* the layer's own duplicate of MPI_COMM_WORLD */
	clab_live_node *final; /* the counts as MPI_Finalize left them */
	const clab_torus_net *tn;
	int me, size;
	int *owner;          /* [node] the lowest world rank on it (clab_mpi_node) */
	uint64_t **block;    /* [node] its block in this host's window */
	int lead;            /* this rank is its host's lowest: it times the
			      * phases and, with several hosts, exchanges */
	int hosts;           /* shared-memory domains of the world */
	uint64_t *rest;      /* several hosts: [node][CLAB_LIVE_ADDED] what the
			      * other hosts added up to the last world barrier
			      * (this host's window) */
	uint64_t *handed;    /* the lead's: [node][CLAB_LIVE_ADDED] this host's
			      * adds as handed out at the last world barrier */
	int content;         /* a message's bytes change its counts (Gemini) */
	MPI_Win shwin;
	unsigned *rot;       /* [dst node] next minimal path of a dynamic message */
	int keyval;          /* communicator attribute: its ranks in world ranks */
	/* this rank's messages since the last world barrier, by (destination,
	 * bytes, VC): an open-addressing table of cap (a power of 2) flows */
	struct flow { uint64_t dst, bytes, vc, count; } *flows;
	size_t nflows, cap;
	int *counts;         /* [3 * size]: the words of each rank's flows, their
			      * offsets, the words it hands out (several hosts) */
	clab_net *timing;    /* the lead's model that times each barrier's phase */
	struct plan {
		int dst, vc, n;  /* n: adds recorded (0: empty) */
		unsigned rot;
		uint64_t bytes;
		struct step { uint32_t x, k; uint64_t v; } *step;
	} plan[PLANS];
	size_t plan_cap;     /* adds a message can make: 5 + 4 per hop */
	struct step *steps;  /* [PLANS][plan_cap] */
} L;

/* ---- counting ------------------------------------------------------------ */

static void add(uint32_t x, size_t k, uint64_t v)
{
	__atomic_fetch_add(L.block[x] + k, v, __ATOMIC_RELAXED);
}

/* ---- waiting: the model's timing of the observed traffic ----------------
 * The counters of waiting (BG/L's no-token cycles, BG/Q's receive-FIFO
 * occupancy) need the timing of traffic in flight together, which no
 * single message has. The live layer takes the messages sent between two
 * barriers on the world (or a congruent communicator) as one phase of the
 * torus model (sim_backends/torus/net.c): at the barrier every rank
 * hands out its flows, each host's lead times the phase and writes the
 * model's totals into its host's blocks before the barrier completes. So
 * a PAPI read after a world barrier sees the waiting of all traffic
 * before it; between barriers they hold still. With several hosts the
 * leads hand out their hosts' adds at the same barrier (docs/mpi.md, "Several
 * hosts"). */

static size_t flow_slot(uint64_t dst, uint64_t bytes, uint64_t vc)
{
	size_t h = (size_t)((dst * 0x9e3779b97f4a7c15ull) ^ (bytes * 0xff51afd7ed558ccdull) ^ vc);
	for (h &= L.cap - 1;; h = (h + 1) & (L.cap - 1)) {
		struct flow *f = &L.flows[h];
		if (!f->count || (f->dst == dst && f->bytes == bytes && f->vc == vc))
			return h;
	}
}

static void note_flow(uint64_t dst, uint64_t bytes, uint64_t vc)
{
	if (2 * (L.nflows + 1) > L.cap) { /* grow: rehash into twice the room */
		struct flow *old = L.flows;
		size_t n = L.cap;
		struct flow *f = calloc(2 * n, sizeof *f);
		if (!f)
			return; /* the phase's timing misses this message */
		L.flows = f;
		L.cap = 2 * n;
		for (size_t i = 0; i < n; i++)
			if (old[i].count)
				L.flows[flow_slot(old[i].dst, old[i].bytes, old[i].vc)] = old[i];
		free(old);
	}
	struct flow *f = &L.flows[flow_slot(dst, bytes, vc)];
	if (!f->count++) {
		*f = (struct flow){dst, bytes, vc, 1};
		L.nflows++;
	}
}

static void *or_abort(void *p, const char *what)
{
	if (!p) {
		fprintf(stderr, "libcounterlab-mpi (rank %d): no memory for %s at a world barrier\n",
			L.me, what);
		PMPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* The lead's words after its flows: its host's adds since the last
 * barrier, as (word, amount) pairs; their number of words. */
static size_t hand_out(uint64_t *out)
{
	size_t n = 0, words = (size_t)L.tn->torus.nodes * CLAB_LIVE_ADDED;
	for (size_t i = 0; i < words; i++) {
		uint64_t v = __atomic_load_n(L.block[i / CLAB_LIVE_ADDED] + i % CLAB_LIVE_ADDED,
					     __ATOMIC_RELAXED);
		if (v != L.handed[i]) {
			out[n++] = i;
			out[n++] = v - L.handed[i];
			L.handed[i] = v;
		}
	}
	return n;
}

/* The world barrier ends a phase (every rank calls this at it). Each rank
 * hands out its flows; a host's lead, with several hosts, its host's adds.
 * Every rank of the host has added its last counts when the first
 * collective returns: only then does the lead look at its host's blocks. */
static void end_phase(void)
{
	const clab_torus *t = &L.tn->torus;
	pthread_mutex_lock(&phase_lock);
	int *fl = L.counts, *counts = fl, *displs = L.counts + L.size, total = 0, n[2];
	/* the flows so far leave the table (other threads send on) */
	pthread_mutex_lock(&lock);
	n[0] = (int)L.nflows * 4;
	size_t most = (size_t)n[0] + (L.handed ? 2 * (size_t)t->nodes * CLAB_LIVE_ADDED : 0);
	uint64_t *mine = malloc((most + 1) * sizeof *mine), *all;
	for (size_t i = 0, k = 0; mine && n[0] && i < L.cap; i++)
		if (L.flows[i].count) {
			memcpy(mine + k, &L.flows[i], sizeof(struct flow));
			k += 4;
		}
	memset(L.flows, 0, L.cap * sizeof *L.flows);
	L.nflows = 0;
	pthread_mutex_unlock(&lock);
	or_abort(mine, "the phase's flows");
	PMPI_Allgather(&n[0], 1, MPI_INT, fl, 1, MPI_INT, L.world);
	if (L.hosts > 1) {
		n[1] = n[0] + (L.handed ? (int)hand_out(mine + n[0]) : 0);
		counts = L.counts + 2 * L.size;
		PMPI_Allgather(&n[1], 1, MPI_INT, counts, 1, MPI_INT, L.world);
	} else {
		n[1] = n[0];
	}
	for (int r = 0; r < L.size; r++) {
		displs[r] = total;
		total += counts[r];
	}
	if (!total)
		goto out;
	all = or_abort(malloc((size_t)total * sizeof *all), "the phase's flows");
	PMPI_Allgatherv(mine, n[1], MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, L.world);
	if (!L.lead)
		goto done;
	for (int r = 0; r < L.size; r++) {
		/* each rank's flows, then a lead's pairs (the other hosts' adds) */
		int i = displs[r];
		for (; i < displs[r] + fl[r]; i += 4)
			clab_net_send(L.timing, (uint32_t)r, (uint32_t)all[i], all[i + 1], all[i + 3],
				      (int)(int64_t)all[i + 2]);
		for (; r != L.me && i < displs[r] + counts[r]; i += 2)
			__atomic_fetch_add(L.rest + all[i], all[i + 1], __ATOMIC_RELAXED);
	}
	clab_net_phase_end(L.timing, 1, NULL);
	for (uint32_t x = 0; x < t->nodes; x++) {
		clab_live_node *b = (clab_live_node *)L.block[x];
		for (int l = 0; l < 2 * t->ndims; l++) {
			__atomic_store_n(&b->no_token[l], clab_net_count(L.timing, x, l, CLAB_NET_NO_TOKEN, 0),
					 __ATOMIC_RELAXED);
			for (int vc = 0; vc < CLAB_NVC; vc++)
				__atomic_store_n(&b->fifo[l * CLAB_NVC + vc],
						 clab_net_count(L.timing, x, l, CLAB_NET_RECV_FIFO,
								CLAB_VC_BIT(vc)), __ATOMIC_RELAXED);
		}
	}
done:
	free(all);
out:
	free(mine);
	pthread_mutex_unlock(&phase_lock);
}

/* What a message adds, word by word: clab_live_message's adds, recorded
 * once per (destination, size, VC, path) and replayed for every message
 * alike, so a repeated message costs its atomic adds and little else (no
 * allocation, no routing). A direct-mapped cache of PLANS plans of at most
 * plan_cap adds each. */
#define ROTS 60 /* rotations repeat: every crossing of 1..6 dimensions divides 60 */

static void add_now(void *arg, uint32_t x, size_t k, uint64_t v)
{
	(void)arg;
	add(x, k, v);
}

static void record(void *arg, uint32_t x, size_t k, uint64_t v)
{
	struct plan *p = arg;
	if (p->n < 0 || p->n == (int)L.plan_cap) {
		p->n = -1; /* longer than any route should be: never replayed */
		return;
	}
	p->step[p->n++] = (struct step){x, (uint32_t)k, v};
}

/* A message of `bytes` from this rank to world rank `to`; buf: its bytes,
 * when they change the counts (contiguous(), else NULL). */
static void send_world_locked(int to, uint64_t bytes, int vc, const void *buf)
{
	const clab_torus_net *tn = L.tn;
	uint32_t dst_node = tn->map.node[to];
	unsigned rot = L.rot[dst_node] % ROTS;
	if (buf) { /* its counts are its own: no plan to replay */
		clab_live_message(&tn->torus, &tn->map, (uint32_t)L.me, (uint32_t)to, bytes, buf,
				  vc, rot, add_now, NULL);
	} else {
		size_t h = (size_t)(((uint64_t)to * 0x9e3779b97f4a7c15ull) ^ (bytes * 0xff51afd7ed558ccdull) ^
				    ((uint64_t)(vc + 1) << 8) ^ rot) % PLANS;
		struct plan *p = &L.plan[h];
		if (!(p->n > 0 && p->dst == to && p->bytes == bytes && p->vc == vc && p->rot == rot)) {
			*p = (struct plan){.dst = to, .bytes = bytes, .vc = vc, .rot = rot, .step = p->step};
			int rc = clab_live_message(&tn->torus, &tn->map, (uint32_t)L.me, (uint32_t)to, bytes,
						   NULL, vc, rot, record, p);
			if (rc) {
				p->n = 0;
				return;
			}
			if (p->n < 0) { /* too long to keep: counted straight away */
				p->n = 0;
				clab_live_message(&tn->torus, &tn->map, (uint32_t)L.me, (uint32_t)to, bytes,
						  NULL, vc, rot, add_now, NULL);
			}
		}
		for (int i = 0; i < p->n; i++)
			add(p->step[i].x, p->step[i].k, p->step[i].v);
	}
	if (bytes > tn->spec.eager_max)
		L.rot[dst_node]++; /* dynamic messages take the minimal paths in turn */
	note_flow((uint64_t)to, bytes, (uint64_t)(int64_t)vc);
}

static void send_world(int to, uint64_t bytes, int vc, const void *buf)
{
	if (to < 0 || to == MPI_PROC_NULL)
		return;
	pthread_mutex_lock(&lock);
	send_world_locked(to, bytes, vc, buf);
	pthread_mutex_unlock(&lock);
}

static int del_ranks(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c, (void)key, (void)extra;
	free(val);
	return MPI_SUCCESS;
}

/* World ranks of the n members of group g (n + 1 places), or NULL when
 * out of memory. */
static int *group_world_ranks(MPI_Group g, int n)
{
	MPI_Group wg;
	int *in = malloc((size_t)n * sizeof *in + 1), *r = malloc(((size_t)n + 1) * sizeof *r);
	if (in && r) {
		for (int i = 0; i < n; i++)
			in[i] = i;
		PMPI_Comm_group(MPI_COMM_WORLD, &wg);
		PMPI_Group_translate_ranks(g, n, in, wg, r);
		PMPI_Group_free(&wg);
	} else {
		free(r);
		r = NULL;
	}
	free(in);
	return r;
}

/* World ranks of comm's members (the remote group of an
 * inter-communicator), cached on the communicator; NULL for the world. */
static const int *world_ranks(MPI_Comm comm, int *n)
{
	if (comm == MPI_COMM_WORLD) {
		*n = L.size;
		return NULL;
	}
	int flag, inter;
	int *r;
	PMPI_Comm_get_attr(comm, L.keyval, &r, &flag);
	PMPI_Comm_test_inter(comm, &inter);
	MPI_Group g;
	if (inter)
		PMPI_Comm_remote_group(comm, &g);
	else
		PMPI_Comm_group(comm, &g);
	PMPI_Group_size(g, n);
	if (!flag) {
		if (!(r = group_world_ranks(g, *n))) {
			PMPI_Group_free(&g);
			*n = 0; /* counts nothing rather than wrong ranks */
			return NULL;
		}
		PMPI_Comm_set_attr(comm, L.keyval, r);
	}
	PMPI_Group_free(&g);
	return r;
}

static int world_of(const int *ranks, int i)
{
	return i == MPI_PROC_NULL || i < 0 ? -1 : ranks ? ranks[i] : i;
}

static uint64_t bytes_of(int count, MPI_Datatype t)
{
	int sz = 0;
	if (count <= 0 || PMPI_Type_size(t, &sz) != MPI_SUCCESS || sz <= 0)
		return 0;
	return (uint64_t)count * (uint64_t)sz;
}

/* buf when the machine's counts depend on a message's bytes (Gemini's
 * payload compression) and count elements of t lie in one piece there;
 * else NULL (counted as incompressible). */
static const void *contiguous(const void *buf, int count, MPI_Datatype t)
{
	MPI_Aint lb, extent, tlb, textent;
	int sz;
	if (!L.content || !buf || buf == MPI_IN_PLACE || count <= 0 ||
	    PMPI_Type_size(t, &sz) != MPI_SUCCESS || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
		return NULL;
	return tlb == 0 && textent == sz && extent == sz ? buf : NULL;
}

static void p2p(MPI_Comm comm, int dest, const void *buf, int count, MPI_Datatype t)
{
	if (!L.on || dest == MPI_PROC_NULL)
		return;
	int n;
	const int *r = world_ranks(comm, &n);
	if (dest >= 0 && dest < n)
		send_world(world_of(r, dest), bytes_of(count, t), CLAB_VC_MPI, contiguous(buf, count, t));
}

/* The collective VC of comm: the world's, or a sub-communicator's. */
static int coll_vc(MPI_Comm comm)
{
	int cmp;
	PMPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp);
	return cmp == MPI_IDENT || cmp == MPI_CONGRUENT ? CLAB_VC_WORLD_COLL
		: CLAB_VC_SUBCOMM_COLL;
}

/* World ranks of an inter-communicator's own group (world_ranks gives the
 * other one), for the steps of its collectives within it; NULL when out
 * of memory. The caller frees it. */
static int *local_ranks(MPI_Comm comm, int *n)
{
	MPI_Group g;
	PMPI_Comm_group(comm, &g);
	PMPI_Group_size(g, n);
	int *r = group_world_ranks(g, *n);
	PMPI_Group_free(&g);
	return r;
}

/* Member me's messages of a binomial broadcast from root (down=1), or of
 * the reduction towards it (down=0), among the n members of world ranks
 * r. */
static void tree_in(const int *r, int n, int me, int root, uint64_t bytes, int down, int vc)
{
	int rel = (me - root + n) % n;
	if (down) {
		for (int span = 1; span < n; span *= 2)
			if (rel < span && rel + span < n)
				send_world(world_of(r, (rel + span + root) % n), bytes, vc, NULL);
	} else if (rel) {
		send_world(world_of(r, (rel - (rel & -rel) + root) % n), bytes, vc, NULL);
	}
}

/* This rank's messages of a broadcast from root (down=1), or of the
 * reduction towards it (down=0). On an inter-communicator, as Open MPI
 * runs them: the root (MPI_ROOT) and the other group's leader (its rank
 * 0) exchange the one message between the groups, and the other group's
 * members a binomial tree rooted at their leader; the root's own group
 * (MPI_PROC_NULL) sends nothing. An all-reduce is a reduction towards
 * each group's leader, the leaders' exchange and a broadcast from them
 * (root 0 on both sides). */
static void tree(MPI_Comm comm, int root, uint64_t bytes, int down, int vc)
{
	if (L.tn->spec.tree_net)
		return; /* the machine's tree network carries it, not the torus */
	int n, me, inter;
	PMPI_Comm_rank(comm, &me);
	PMPI_Comm_test_inter(comm, &inter);
	const int *remote = world_ranks(comm, &n);
	if (!inter) {
		tree_in(remote, n, me, root, bytes, down, vc);
		return;
	}
	if (root == MPI_ROOT && down)
		send_world(world_of(remote, 0), bytes, vc, NULL);
	if (root < 0 || root >= n) /* MPI_ROOT, MPI_PROC_NULL */
		return;
	int nl, *local = local_ranks(comm, &nl);
	if (!local)
		return;
	tree_in(local, nl, me, 0, bytes, down, vc);
	if (!down && me == 0)
		send_world(world_of(remote, root), bytes, vc, NULL);
	free(local);
}

/* One message to every other member: bytes_at(i) to member i. */
static void to_all(MPI_Comm comm, const int *counts, int count, MPI_Datatype t)
{
	int n, me, inter;
	const int *r = world_ranks(comm, &n);
	PMPI_Comm_rank(comm, &me);
	PMPI_Comm_test_inter(comm, &inter);
	for (int i = !inter; i < n; i++) { /* (an inter-communicator's are all the other group) */
		int j = (me + i) % n;
		if (!counts || counts[j])
			send_world(world_of(r, j), bytes_of(counts ? counts[j] : count, t), CLAB_VC_MPI, NULL);
	}
}

/* ---- setting up ---------------------------------------------------------- */

/* Node x's block as this host has it; with several hosts, a copy of it
 * (in the calling thread's memory, until its next call) with the other
 * hosts' adds as of the last world barrier. */
static const clab_live_node *get_block(void *arg, uint32_t x)
{
	static __thread clab_live_node sum;
	(void)arg;
	if (!L.on || x >= L.tn->torus.nodes)
		return NULL;
	if (!L.rest)
		return (const clab_live_node *)L.block[x];
	const uint64_t *own = L.block[x], *rest = L.rest + (size_t)x * CLAB_LIVE_ADDED;
	uint64_t *w = (uint64_t *)&sum;
	for (size_t k = 0; k < WORDS; k++)
		w[k] = __atomic_load_n(own + k, __ATOMIC_RELAXED) +
		       (k < CLAB_LIVE_ADDED ? __atomic_load_n(rest + k, __ATOMIC_RELAXED) : 0);
	return &sum;
}

/* Set-up goes in steps that every rank takes together, each ended by
 * agree(): its collectives stay in step whichever ranks failed, and a
 * failure is said once, by the first rank that met it. */
static char failed[512];

static const char *fail(const char *why)
{
	snprintf(failed, sizeof failed, "%s", why);
	return failed;
}

/* Whether any rank's step failed (why: this rank's reason, or NULL). */
static int agree(const char *why)
{
	int mine = why ? L.me : INT_MAX, first, one = why != NULL, n;
	PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == INT_MAX)
		return 0;
	PMPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (first == L.me)
		fprintf(stderr, "libcounterlab-mpi (rank %d%s): %s; this run's messages are not counted\n",
			L.me, n > 1 ? " and others" : "", why);
	return 1;
}

static int domains_wanted;          /* COUNTERLAB_MPI_DOMAINS */
static int *members;                /* ranks of this rank's domain */
static char *names;                 /* every rank's processor name */

/* Step 1, this rank alone: the machine, its map, the tables. */
static const char *prepare(void)
{
	clab_machine *m;
	int err;
	if (clab_machine_default(&m) || !(L.tn = clab_machine_torus(m, &err)))
		return fail(clab_errmsg());
	const clab_torus_net *tn = L.tn;
	uint32_t nodes = tn->torus.nodes;
	if ((uint32_t)L.size > tn->map.nranks) {
		char why[200];
		snprintf(why, sizeof why, "%d ranks run but the machine's map places %u (torus %u nodes x ppn %d)",
			 L.size, tn->map.nranks, nodes, tn->torus.ppn);
		return fail(why);
	}
	if (tn->rank != (uint32_t)L.me)
		return fail("the network unit's [network] rank is not this rank's MPI_COMM_WORLD rank");
	L.content = !strcmp(tn->spec.name, "gemini");
	L.cap = 64;
	L.flows = calloc(L.cap, sizeof *L.flows);
	L.counts = malloc(3 * (size_t)L.size * sizeof *L.counts);
	if (!L.flows || !L.counts)
		return fail("no memory");
	int hops = 0;
	for (int d = 0; d < tn->torus.ndims; d++)
		hops += tn->torus.wrap[d] ? tn->torus.size[d] / 2 : tn->torus.size[d] - 1;
	L.plan_cap = 5 + 4 * (size_t)hops;
	if (!(L.steps = calloc(PLANS * L.plan_cap, sizeof *L.steps)))
		return fail("no memory");
	for (int i = 0; i < PLANS; i++)
		L.plan[i].step = L.steps + (size_t)i * L.plan_cap;
	L.owner = malloc(nodes * sizeof *L.owner);
	L.block = calloc(nodes, sizeof *L.block);
	L.rot = calloc(nodes, sizeof *L.rot);
	if (!L.owner || !L.block || !L.rot)
		return fail("no memory");
	for (uint32_t x = 0; x < nodes; x++)
		L.owner[x] = (int)(x % (uint32_t)L.size);
	for (int r = L.size - 1; r >= 0; r--)
		L.owner[tn->map.node[r]] = r;

	/* The shared-memory domains (ranks on one host, by processor name),
	 * split further on request. The domain's communicator is made with
	 * MPI_Comm_create_group and freed once the window exists: in Open MPI
	 * a communicator split from the world leaves the non-blocking
	 * collectives' progress hook polled by every later MPI call for good
	 * (7-9% of a ping-pong's time, bench/results/pmpi.json), which a
	 * group-made one, freed, does not. */
	const char *e = getenv("COUNTERLAB_MPI_DOMAINS");
	char *end;
	long d = e ? (errno = 0, strtol(e, &end, 10)) : 1;
	if (e && (!*e || *end || errno || d < 1 || d > INT_MAX)) {
		char why[200];
		snprintf(why, sizeof why, "COUNTERLAB_MPI_DOMAINS=%.60s: a number of domains per host, 1 or more", e);
		return fail(why);
	}
	domains_wanted = (int)d;
	members = malloc((size_t)L.size * sizeof *members);
	names = calloc((size_t)L.size, MPI_MAX_PROCESSOR_NAME);
	return members && names ? NULL : fail("no memory");
}

/* Step 2, the world together: the shared-memory domains, their window,
 * the lead's tables. */
static const char *share(void)
{
	const clab_torus_net *tn = L.tn;
	uint32_t nodes = tn->torus.nodes;
	int domains = domains_wanted, dsize = 0, len, err;
	char name[MPI_MAX_PROCESSOR_NAME] = {0};
	PMPI_Get_processor_name(name, &len);
	PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
		       MPI_COMM_WORLD);
	int hsize = 0, hrank = 0;
	for (int r = 0; r < L.size; r++)
		if (!strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name)) {
			if (r == L.me)
				hrank = hsize;
			hsize++;
		}
	/* the host's ranks in order, cut into `domains` parts */
	for (int r = 0, i = 0; r < L.size; r++)
		if (!strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) &&
		    i++ * domains / hsize == hrank * domains / hsize)
			members[dsize++] = r;
	free(names);
	names = NULL;
	L.lead = members[0] == L.me;
	PMPI_Allreduce(&L.lead, &L.hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Group dg, wg;
	MPI_Comm domain;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_incl(wg, dsize, members, &dg);
	free(members);
	members = NULL;
	PMPI_Group_free(&wg);
	int made = PMPI_Comm_create_group(MPI_COMM_WORLD, dg, 0x636c, &domain);
	PMPI_Group_free(&dg);
	if (made != MPI_SUCCESS)
		return fail("MPI_Comm_create_group failed");
	/* the lead's memory holds the host's blocks of every node, then (with
	 * several hosts) what the other hosts added */
	size_t words = (size_t)nodes * (WORDS + (L.hosts > 1 ? CLAB_LIVE_ADDED : 0));
	uint64_t *base;
	PMPI_Comm_set_errhandler(domain, MPI_ERRORS_RETURN);
	if (PMPI_Win_allocate_shared(L.lead ? (MPI_Aint)(words * sizeof *base) : 0, sizeof *base,
				     MPI_INFO_NULL, domain, &base, &L.shwin) != MPI_SUCCESS) {
		char why[MPI_MAX_PROCESSOR_NAME + 200];
		snprintf(why, sizeof why, "MPI_Win_allocate_shared failed among the %d ranks named %s "
			 "(ranks on different hosts need different processor names)", dsize, name);
		PMPI_Comm_free(&domain);
		return fail(why);
	}
	PMPI_Comm_free(&domain);
	MPI_Aint sz;
	int unit;
	PMPI_Win_shared_query(L.shwin, 0, &sz, &unit, &base);
	if (L.lead)
		memset(base, 0, words * sizeof *base);
	for (uint32_t x = 0; x < nodes; x++)
		L.block[x] = base + (size_t)x * WORDS;
	if (L.hosts > 1)
		L.rest = base + (size_t)nodes * WORDS;
	if (L.lead && L.hosts > 1 &&
	    !(L.handed = calloc((size_t)nodes * CLAB_LIVE_ADDED, sizeof *L.handed)))
		return fail("no memory");
	if (L.lead && !(L.timing = clab_net_new(&tn->torus, &tn->map, &err)))
		return fail(clab_errmsg());
	return NULL;
}

static int setup(void)
{
	PMPI_Comm_rank(MPI_COMM_WORLD, &L.me);
	PMPI_Comm_size(MPI_COMM_WORLD, &L.size);
	if (agree(prepare()) || agree(share())) {
		free(members); /* (a step that failed may have left them) */
		free(names);
		members = NULL;
		names = NULL;
		return MPI_ERR_OTHER;
	}
	PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_ranks, &L.keyval, NULL);
	int dup = PMPI_Comm_dup(MPI_COMM_WORLD, &L.world);
	if (agree(dup == MPI_SUCCESS ? NULL : fail("MPI_Comm_dup failed")))
		return MPI_ERR_OTHER;
	PMPI_Barrier(MPI_COMM_WORLD); /* every block zeroed before anyone counts */
	L.on = 1;
	clab_live_attach(get_block, NULL);
	return MPI_SUCCESS;
}

/* After MPI_Finalize, the counts as it left them (a tool that stops its
 * counters at exit reads them then). */
static const clab_live_node *get_final(void *arg, uint32_t x)
{
	(void)arg;
	return x < L.tn->torus.nodes ? &L.final[x] : NULL;
}

static void teardown(void)
{
	if (!L.on)
		return;
	uint32_t nodes = L.tn->torus.nodes;
	if ((L.final = malloc(nodes * sizeof *L.final)))
		for (uint32_t x = 0; x < nodes; x++)
			L.final[x] = *get_block(NULL, x);
	clab_live_attach(L.final ? get_final : NULL, NULL);
	L.on = 0;
	PMPI_Comm_free(&L.world);
	PMPI_Win_free(&L.shwin);
	PMPI_Comm_free_keyval(&L.keyval);
	free(L.owner);
	free(L.block);
	free(L.handed);
	free(L.rot);
	free(L.flows);
	free(L.counts);
	free(L.steps);
	clab_net_free(L.timing);
}

int clab_mpi_node(uint32_t *node, int *first, uint32_t *nodes)
{
	if (!L.on)
		return CLAB_E_STATE;
	*node = L.tn->map.node[L.me];
	*first = L.owner[*node];
	*nodes = L.tn->torus.nodes;
	return CLAB_OK;
}

int clab_mpi_neighbor(int rank, int link, int *neighbor)
{
	if (!L.on)
		return CLAB_E_STATE;
	const clab_torus *t = &L.tn->torus;
	if (rank < 0 || rank >= L.size || link < 0 || link >= 2 * t->ndims)
		return CLAB_E_INVAL;
	uint32_t x = L.tn->map.node[rank], y = clab_torus_neighbor(t, x, link);
	int r = L.owner[y];
	*neighbor = y != x && L.tn->map.node[r] == y ? r : -1;
	return CLAB_OK;
}

/* ---- the wrappers --------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);
	return rc == MPI_SUCCESS ? setup() : rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	return rc == MPI_SUCCESS ? setup() : rc;
}

int MPI_Finalize(void)
{
	teardown();
	return PMPI_Finalize();
}

#define SEND_LIKE(NAME, ...)                                                             \
	int NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag,         \
		 MPI_Comm comm __VA_ARGS__)
SEND_LIKE(MPI_Send) { p2p(comm, dest, buf, count, t); return PMPI_Send(buf, count, t, dest, tag, comm); }
SEND_LIKE(MPI_Ssend) { p2p(comm, dest, buf, count, t); return PMPI_Ssend(buf, count, t, dest, tag, comm); }
SEND_LIKE(MPI_Bsend) { p2p(comm, dest, buf, count, t); return PMPI_Bsend(buf, count, t, dest, tag, comm); }
SEND_LIKE(MPI_Rsend) { p2p(comm, dest, buf, count, t); return PMPI_Rsend(buf, count, t, dest, tag, comm); }
SEND_LIKE(MPI_Isend, , MPI_Request *req)
{ p2p(comm, dest, buf, count, t); return PMPI_Isend(buf, count, t, dest, tag, comm, req); }
SEND_LIKE(MPI_Issend, , MPI_Request *req)
{ p2p(comm, dest, buf, count, t); return PMPI_Issend(buf, count, t, dest, tag, comm, req); }
SEND_LIKE(MPI_Ibsend, , MPI_Request *req)
{ p2p(comm, dest, buf, count, t); return PMPI_Ibsend(buf, count, t, dest, tag, comm, req); }
SEND_LIKE(MPI_Irsend, , MPI_Request *req)
{ p2p(comm, dest, buf, count, t); return PMPI_Irsend(buf, count, t, dest, tag, comm, req); }

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st, int dest, int stag,
		 void *rbuf, int rcount, MPI_Datatype rt, int src, int rtag, MPI_Comm comm,
		 MPI_Status *status)
{
	p2p(comm, dest, sbuf, scount, st);
	return PMPI_Sendrecv(sbuf, scount, st, dest, stag, rbuf, rcount, rt, src, rtag, comm,
			     status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest, int stag, int src,
			 int rtag, MPI_Comm comm, MPI_Status *status)
{
	p2p(comm, dest, buf, count, t);
	return PMPI_Sendrecv_replace(buf, count, t, dest, stag, src, rtag, comm, status);
}

/* A block of scount st (rcount rt in place) to every other member. */
static void blocks(MPI_Comm comm, const void *sbuf, int scount, MPI_Datatype st, int rcount,
		   MPI_Datatype rt)
{
	if (L.on)
		to_all(comm, NULL, sbuf == MPI_IN_PLACE ? rcount : scount,
		       sbuf == MPI_IN_PLACE ? rt : st);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		 MPI_Datatype rt, MPI_Comm comm)
{
	blocks(comm, sbuf, scount, st, rcount, rt);
	return PMPI_Alltoall(sbuf, scount, st, rbuf, rcount, rt, comm);
}

/* Blocks of scounts[i] st (rcounts in place) to every other member i. */
static void vblocks(MPI_Comm comm, const void *sbuf, const int *scounts, MPI_Datatype st,
		    const int *rcounts, MPI_Datatype rt)
{
	if (L.on)
		to_all(comm, sbuf == MPI_IN_PLACE ? rcounts : scounts, 0,
		       sbuf == MPI_IN_PLACE ? rt : st);
}

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype st,
		  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rt,
		  MPI_Comm comm)
{
	vblocks(comm, sbuf, scounts, st, rcounts, rt);
	return PMPI_Alltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt, comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		  MPI_Datatype rt, MPI_Comm comm)
{
	blocks(comm, sbuf, scount, st, rcount, rt);
	return PMPI_Allgather(sbuf, scount, st, rbuf, rcount, rt, comm);
}

/* A broadcast's messages from root (down = 1), or a reduction's to it */
static void rooted_tree(MPI_Comm comm, int root, int count, MPI_Datatype t, int down)
{
	if (L.on)
		tree(comm, root, bytes_of(count, t), down, coll_vc(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
	rooted_tree(comm, root, count, t, 1);
	return PMPI_Bcast(buf, count, t, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, int root,
	       MPI_Comm comm)
{
	rooted_tree(comm, root, count, t, 0);
	return PMPI_Reduce(sbuf, rbuf, count, t, op, root, comm);
}

static void allreduce(MPI_Comm comm, uint64_t bytes)
{
	int vc = coll_vc(comm);
	tree(comm, 0, bytes, 0, vc);
	tree(comm, 0, bytes, 1, vc);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
		  MPI_Comm comm)
{
	if (L.on)
		allreduce(comm, bytes_of(count, t));
	return PMPI_Allreduce(sbuf, rbuf, count, t, op, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
	if (L.on) {
		allreduce(comm, 0);
		if (coll_vc(comm) == CLAB_VC_WORLD_COLL)
			end_phase();
	}
	return PMPI_Barrier(comm);
}

/* A gather's message to root */
static void to_root(MPI_Comm comm, int root, const void *sbuf, int scount, MPI_Datatype st)
{
	int me;
	PMPI_Comm_rank(comm, &me);
	if (L.on && me != root)
		p2p(comm, root, sbuf, scount, st);
}

/* A scatter's messages from root */
static void from_root(MPI_Comm comm, int root, int scount, MPI_Datatype st)
{
	int me, n;
	PMPI_Comm_rank(comm, &me);
	PMPI_Comm_size(comm, &n);
	for (int i = 0; L.on && me == root && i < n; i++)
		if (i != root)
			p2p(comm, i, NULL, scount, st); /* collectives' bytes: not looked at */
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
	       MPI_Datatype rt, int root, MPI_Comm comm)
{
	to_root(comm, root, sbuf, scount, st);
	return PMPI_Gather(sbuf, scount, st, rbuf, rcount, rt, root, comm);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		MPI_Datatype rt, int root, MPI_Comm comm)
{
	from_root(comm, root, scount, st);
	return PMPI_Scatter(sbuf, scount, st, rbuf, rcount, rt, root, comm);
}

/* Non-blocking collectives: their messages, counted when posted (as a
 * non-blocking send's are). */
int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		  MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
	blocks(comm, sbuf, scount, st, rcount, rt);
	return PMPI_Ialltoall(sbuf, scount, st, rbuf, rcount, rt, comm, req);
}

int MPI_Ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype st,
		   void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rt,
		   MPI_Comm comm, MPI_Request *req)
{
	vblocks(comm, sbuf, scounts, st, rcounts, rt);
	return PMPI_Ialltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt, comm, req);
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		   MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
	blocks(comm, sbuf, scount, st, rcount, rt);
	return PMPI_Iallgather(sbuf, scount, st, rbuf, rcount, rt, comm, req);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *req)
{
	rooted_tree(comm, root, count, t, 1);
	return PMPI_Ibcast(buf, count, t, root, comm, req);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, int root,
		MPI_Comm comm, MPI_Request *req)
{
	rooted_tree(comm, root, count, t, 0);
	return PMPI_Ireduce(sbuf, rbuf, count, t, op, root, comm, req);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
		   MPI_Comm comm, MPI_Request *req)
{
	if (L.on)
		allreduce(comm, bytes_of(count, t));
	return PMPI_Iallreduce(sbuf, rbuf, count, t, op, comm, req);
}

/* (no phase ends here: the ranks have not met when it returns) */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	if (L.on)
		allreduce(comm, 0);
	return PMPI_Ibarrier(comm, req);
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
	to_root(comm, root, sbuf, scount, st);
	return PMPI_Igather(sbuf, scount, st, rbuf, rcount, rt, root, comm, req);
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
	from_root(comm, root, scount, st);
	return PMPI_Iscatter(sbuf, scount, st, rbuf, rcount, rt, root, comm, req);
}

/* One-sided: the origin's data crossing to the target (BG/Q's message
 * unit puts it there), from the window's rank to the world's. What a
 * target sends back (a get's data, a fetch's result) is not counted. */
static void put(MPI_Win win, int target, const void *buf, int count, MPI_Datatype t)
{
	if (!L.on || target == MPI_PROC_NULL)
		return;
	MPI_Group g, wg;
	int world = -1;
	if (PMPI_Win_get_group(win, &g) != MPI_SUCCESS)
		return;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, 1, &target, wg, &world);
	PMPI_Group_free(&wg);
	PMPI_Group_free(&g);
	if (world != MPI_UNDEFINED)
		send_world(world, bytes_of(count, t), CLAB_VC_MPI, contiguous(buf, count, t));
}

int MPI_Put(const void *obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp,
	    int tcount, MPI_Datatype tt, MPI_Win win)
{
	put(win, target, obuf, ocount, ot);
	return PMPI_Put(obuf, ocount, ot, target, tdisp, tcount, tt, win);
}

int MPI_Rput(const void *obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp,
	     int tcount, MPI_Datatype tt, MPI_Win win, MPI_Request *req)
{
	put(win, target, obuf, ocount, ot);
	return PMPI_Rput(obuf, ocount, ot, target, tdisp, tcount, tt, win, req);
}

int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp,
		   int tcount, MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
	put(win, target, obuf, ocount, ot);
	return PMPI_Accumulate(obuf, ocount, ot, target, tdisp, tcount, tt, op, win);
}
