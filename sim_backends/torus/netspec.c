/* The torus machines' network facts (HARDWARE.md sections 1 and 2), and
 * how a message is cut into packets on each. Numbers marked "model" are
 * modeller's choices where no public figure was at hand (see README,
 * "The torus network model"). */
#include <string.h>
#include "counterlab/torus.h"

static const clab_netspec specs[] = {
	{
		.name = "bgq",
		.description = "IBM Blue Gene/Q: 5D torus ABCDE (E = 2), 2 GB/s links, 500 MHz network",
		.letters = "ABCDET", .ndims = 5,
		.shape = "4x4x4x4x2", .ppn = 16, .max_ppn = 64,
		.fixed_dim = 4, .fixed_size = 2,
		.header = 32, .chunk = 32, .max_payload = 512, .min_packet = 32,
		.extra_per_packet = 0,
		.link_bytes_s = 2e9, .net_hz = 500e6, .cpu_hz = 1.6e9,
		.hop_s = 40e-9,          /* model */
		.eager_max = 2048,
		.fifo_packets = 7,       /* tokens of a bubble VC's receive buffer */
		.drain_links = 10,       /* the MU takes in all ten links at once */
		.io_link = 1,
	},
	{
		.name = "bgl",
		.description = "IBM Blue Gene/L: 3D torus XYZ, 2 bits per cycle links, 700 MHz",
		.letters = "XYZT", .ndims = 3,
		.shape = "8x4x4", .ppn = 1, .max_ppn = 2,
		.fixed_dim = -1, .fixed_size = 0,
		.header = 16, .chunk = 32, .max_payload = 240, .min_packet = 32,
		.extra_per_packet = 14,  /* link protocol, ack, checksum */
		.link_bytes_s = 175e6, .net_hz = 700e6, .cpu_hz = 700e6,
		.hop_s = 100e-9,         /* model */
		.eager_max = 1000,
		.fifo_packets = 4,       /* a 1 KB reception FIFO of 256-byte packets */
		.drain_links = 2,        /* model: links a polling CPU keeps up with */
		.io_link = 0,
	},
};

static const char *const names[] = {"bgq", "bgl", NULL};

const clab_netspec *clab_netspec_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof specs / sizeof *specs; i++)
		if (!strcmp(specs[i].name, name))
			return &specs[i];
	return NULL;
}

const char *const *clab_netspec_names(void)
{
	return names;
}

/* On the wire a packet is its header and payload rounded up to whole
 * chunks (at least min_packet), plus extra_per_packet bytes. */
static void one_packet(const clab_netspec *s, uint64_t payload, uint64_t times,
		       clab_packets *p)
{
	uint64_t size = (s->header + payload + s->chunk - 1) / s->chunk * s->chunk;
	if (size < s->min_packet)
		size = s->min_packet;
	p->packets += times;
	p->chunks += times * (size / s->chunk);
	p->wire += times * (size + s->extra_per_packet);
}

clab_packets clab_netspec_packetize(const clab_netspec *s, uint64_t bytes)
{
	clab_packets p = {0, 0, 0};
	uint64_t full = bytes / s->max_payload, last = bytes % s->max_payload;
	one_packet(s, s->max_payload, full, &p);
	if (last || !bytes)
		one_packet(s, last, 1, &p);
	return p;
}
