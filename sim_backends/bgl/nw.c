/* The Blue Gene/L torus events of its UPC unit, as counterlab-netsim reads
 * them off the torus model. BG/L counts on the sending side only: per
 * direction, packets and 32-byte chunks sent (all, and per VC: D0 and D1
 * dynamic, BN the deterministic "bubble normal", BP priority), the acks
 * and token acks it returns, and the cycles a link was free but had no
 * token for the VCs it had data for.
 *
 * Model: the torus model keeps one dynamic VC, counted as D0 (D1 reads
 * zero); an ack returns per packet and a token per chunk received; every
 * no-token variant reads the link's no-token cycles (no token for any VC
 * the link had data for), except priority (BP) traffic, which the patterns
 * do not send. */
#include "counterlab/torus.h"

#define D CLAB_VC_BIT(CLAB_VC_DYNAMIC)
#define BN CLAB_VC_BIT(CLAB_VC_ESCAPE)
#define BP CLAB_VC_BIT(CLAB_VC_PRIORITY)
#define ALL 0x7fu

#define DIRECTION(DIR, LINK)                                                              \
	{"BGL_UPC_TS_" DIR "_PKTS", DIR " packets sent", CLAB_NET_SENT_PACKETS, ALL, LINK, 1}, \
	{"BGL_UPC_TS_" DIR "_32B_CHUNKS", DIR " 32-byte chunks sent", CLAB_NET_SENT_CHUNKS, ALL, LINK, 1}, \
	{"BGL_UPC_TS_" DIR "_VCD0_CHUNKS", DIR " chunks sent on dynamic VC 0", CLAB_NET_SENT_CHUNKS, D, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_VCD1_CHUNKS", DIR " chunks sent on dynamic VC 1", CLAB_NET_SENT_CHUNKS, 0, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_VCBN_CHUNKS", DIR " chunks sent on the bubble normal (deterministic) VC", CLAB_NET_SENT_CHUNKS, BN, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_VCBP_CHUNKS", DIR " chunks sent on the bubble priority VC", CLAB_NET_SENT_CHUNKS, BP, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_ACKS", DIR " acks sent (one per packet received)", CLAB_NET_RECV_PACKETS, ALL, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_TOKEN_ACKS", DIR " token acks sent (one per chunk received)", CLAB_NET_RECV_CHUNKS, ALL, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCBN_TOKENS", DIR " cycles link free, no bubble normal token", CLAB_NET_NO_TOKEN, ALL, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCBP_TOKENS", DIR " cycles link free, no bubble priority token", CLAB_NET_SENT_CHUNKS, 0, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCD0_VCD1_TOKENS", DIR " cycles link free, no dynamic VC token", CLAB_NET_NO_TOKEN, ALL, LINK, 0}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCD0_VCD_VCBN_TOKENS", DIR " cycles link free, no dynamic or bubble normal token", CLAB_NET_NO_TOKEN, ALL, LINK, 1}

/* Links as the torus model numbers them: 2d minus, 2d+1 plus. */
static const clab_netevent bgl_events[] = {
	DIRECTION("XM", 0), DIRECTION("XP", 1),
	DIRECTION("YM", 2), DIRECTION("YP", 3),
	DIRECTION("ZM", 4), DIRECTION("ZP", 5),
};

const clab_netevent *clab_bgl_netevents(int *n)
{
	*n = (int)(sizeof bgl_events / sizeof *bgl_events);
	return bgl_events;
}
