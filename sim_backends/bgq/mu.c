/* The message unit's counts of one message, as the node's threads send
 * and receive them (clab_sim_message). A message is cut into packets of up
 * to 512 payload bytes. Sending reads the 64-byte descriptor and then each
 * packet's payload from memory in 128-byte reads, the tail in one 64- and/or
 * 32-byte read; the core writes the injection FIFO's tail pointer through
 * the MU slave port. Receiving writes what arrives in 16-byte writes: memory
 * FIFO packets with their 32-byte header, puts and remote-get descriptors
 * without; polling a reception FIFO reads its tail and writes its head
 * through the slave port, a put's completion counter is polled once.
 * Messages take the MU's three master ports in turn. The node counts them;
 * the I/O unit (io.c) reads them. */
#include "counterlab/sim.h"
#include "bgq.h"

#define PACKET_PAYLOAD 512
#define HEADER 32
#define DESCRIPTOR 64

/* Reads of one payload of p bytes from memory. */
static void payload_reads(uint64_t p, uint64_t times, int port, uint64_t *c)
{
	uint64_t tail32 = (p % 128 + 31) / 32; /* 32-byte pieces past the last 128 */
	c[MU_PORT(port, MU_RD128)] += times * (p / 128 + (tail32 == 4));
	c[MU_PORT(port, MU_RD64)] += times * (tail32 == 2 || tail32 == 3);
	c[MU_PORT(port, MU_RD32)] += times * (tail32 == 1 || tail32 == 3);
}

int bgq_mu_message(uint64_t seq, int kind, uint64_t bytes, uint64_t *c)
{
	int port = (int)(seq % 3);
	uint64_t full = bytes / PACKET_PAYLOAD, last = bytes % PACKET_PAYLOAD;
	uint64_t packets = full + (last || !bytes);
	uint64_t hdr = kind == CLAB_MSG_RECV_FIFO ? HEADER : 0;
	switch (kind) {
	case CLAB_MSG_SEND:
		c[MU_MSG_INJ] += 1;
		c[MU_PKT_INJ] += packets;
		c[MU_SLV_PORT_WRT] += 1;
		payload_reads(DESCRIPTOR, 1, port, c);
		payload_reads(PACKET_PAYLOAD, full, port, c);
		if (last)
			payload_reads(last, 1, port, c);
		return CLAB_OK;
	case CLAB_MSG_RECV_FIFO: case CLAB_MSG_RECV_PUT: case CLAB_MSG_RECV_RGET:
		c[kind == CLAB_MSG_RECV_FIFO ? MU_FIFO_PKT_RCV
		  : kind == CLAB_MSG_RECV_PUT ? MU_PUT_PKT_RCV : MU_RGET_PKT_RCV] += packets;
		c[MU_PORT(port, MU_WRT16)] += full * ((hdr + PACKET_PAYLOAD + 15) / 16) +
					(last || !bytes) * ((hdr + last + 15) / 16);
		c[MU_SLV_PORT_RD] += kind != CLAB_MSG_RECV_RGET;
		c[MU_SLV_PORT_WRT] += kind == CLAB_MSG_RECV_FIFO;
		return CLAB_OK;
	default:
		return clab_seterr(CLAB_E_INVAL, "message kind %d is not a clab_msg", kind);
	}
}
