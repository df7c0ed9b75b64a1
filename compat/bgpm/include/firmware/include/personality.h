/* The part of BG/Q's node personality that libbgpm fills in (see
 * docs/bgpm-gpcd.md): clock frequency, memory size, torus shape and
 * this node's coordinates. Field names follow IBM's firmware header. */
#ifndef COUNTERLAB_BGQ_PERSONALITY_H
#define COUNTERLAB_BGQ_PERSONALITY_H
#include <stdint.h>

typedef struct Personality_Kernel_t {
	uint64_t UCI;
	uint64_t NodeConfig;
	uint64_t TraceConfig;
	uint32_t RASPolicy;
	uint32_t FreqMHz;    /* core clock */
	uint64_t ClockStop;
} Personality_Kernel_t;

typedef struct Personality_DDR_t {
	uint32_t DDRFlags;
	uint32_t DDRSizeMB;
} Personality_DDR_t;

typedef struct Personality_Networks_t {
	uint32_t BlockID;
	uint64_t NetFlags;
	uint64_t NetFlags2;
	uint8_t Anodes, Bnodes, Cnodes, Dnodes, Enodes; /* torus shape */
	uint8_t Acoord, Bcoord, Ccoord, Dcoord, Ecoord; /* this node */
} Personality_Networks_t;

typedef struct Personality_t {
	uint16_t CRC;
	uint8_t Version;
	uint8_t PersonalitySizeWords;
	Personality_Kernel_t Kernel_Config;
	Personality_DDR_t DDR_Config;
	Personality_Networks_t Network_Config;
} Personality_t;

#define ND_TORUS_SIZE(net) ((net).Anodes * (net).Bnodes * (net).Cnodes * (net).Dnodes * (net).Enodes)
#endif
