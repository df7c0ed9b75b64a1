/* linux-net: the node's network interfaces (/sys/class/net/IF/statistics/)
 * and InfiniBand ports (/sys/class/infiniband/DEV/ports/N/counters/), one
 * event per interface and counter, named as PAPI's net and infiniband
 * components name them: "eth0:rx:bytes", "mlx5_0_1:port_xmit_data".
 *
 * The root (/sys) is the profile key sys_dir, else $COUNTERLAB_SYSFS_ROOT.
 * A node without InfiniBand simply has no such events. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lx.h"

static int not_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* The entries of dir, sorted (so event codes do not depend on readdir). */
static int list_dir(const char *dir, struct dirent ***out)
{
	int n = scandir(dir, out, not_hidden, alphasort);
	if (n < 0)
		*out = NULL;
	return n;
}

static void free_list(struct dirent **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* Whether path holds one number (a counter file we can read). */
static int is_counter_file(const char *path)
{
	char *buf;
	uint64_t v;
	if (clab_lx_slurp(path, &buf, NULL))
		return 0;
	int ok = clab_lx_field(buf, path, 0, &v) == CLAB_OK;
	free(buf);
	return ok;
}

/* "rx_bytes" -> "rx:bytes", as PAPI's net component spells its events. */
static void net_event_name(const char *ifname, const char *file, char *out, size_t cap)
{
	if ((strncmp(file, "rx_", 3) == 0 || strncmp(file, "tx_", 3) == 0) && file[3])
		lx_fmt(out, cap, "%s:%.2s:%s", ifname, file, file + 3);
	else
		lx_fmt(out, cap, "%s:%s", ifname, file);
}

static int add_interfaces(lx_unit *u)
{
	char dir[700];
	lx_fmt(dir, sizeof dir, "%s/class/net", u->root);
	struct dirent **ifs;
	int nif = list_dir(dir, &ifs);
	int rc = CLAB_OK;
	for (int i = 0; i < nif && !rc; i++) {
		const char *ifname = ifs[i]->d_name;
		char sdir[1000], loc[128];
		lx_fmt(sdir, sizeof sdir, "%s/%s/statistics", dir, ifname);
		struct dirent **st;
		int ns = list_dir(sdir, &st);
		clab_lx_locality(ifname, loc, sizeof loc);
		for (int k = 0; k < ns && !rc; k++) {
			char path[1400], rel[600], name[300], descr[600];
			lx_fmt(path, sizeof path, "%s/%s", sdir, st[k]->d_name);
			if (!is_counter_file(path))
				continue;
			lx_fmt(rel, sizeof rel, "class/net/%s/statistics/%s", ifname, st[k]->d_name);
			net_event_name(ifname, st[k]->d_name, name, sizeof name);
			lx_fmt(descr, sizeof descr, "Interface %s: %s (/sys/%s, node-wide; device in %s)",
				 ifname, st[k]->d_name, rel, loc);
			lx_src src = {.kind = LX_FIELD, .path = rel, .idx = 0, .width = 64};
			rc = lx_add(u, name, descr, "NET", CLAB_SCOPE_NODE, 0, &src);
		}
		if (ns > 0)
			free_list(st, ns);
	}
	if (nif > 0)
		free_list(ifs, nif);
	return rc;
}

/* Port counters of every InfiniBand device; absent on most machines. */
static int add_infiniband(lx_unit *u)
{
	char dir[700];
	lx_fmt(dir, sizeof dir, "%s/class/infiniband", u->root);
	struct dirent **devs;
	int nd = list_dir(dir, &devs);
	int rc = CLAB_OK;
	for (int i = 0; i < nd && !rc; i++) {
		const char *dev = devs[i]->d_name;
		char pdir[1000], loc[128];
		lx_fmt(pdir, sizeof pdir, "%s/%s/ports", dir, dev);
		clab_lx_locality(dev, loc, sizeof loc);
		struct dirent **ports;
		int np = list_dir(pdir, &ports);
		for (int p = 0; p < np && !rc; p++) {
			char cdir[1400];
			lx_fmt(cdir, sizeof cdir, "%s/%s/counters", pdir, ports[p]->d_name);
			struct dirent **ctrs;
			int nc = list_dir(cdir, &ctrs);
			for (int k = 0; k < nc && !rc; k++) {
				const char *c = ctrs[k]->d_name;
				char path[1800], rel[700], name[300], descr[900];
				lx_fmt(path, sizeof path, "%s/%s", cdir, c);
				if (!is_counter_file(path))
					continue;
				lx_fmt(rel, sizeof rel, "class/infiniband/%s/ports/%s/counters/%s",
					 dev, ports[p]->d_name, c);
				lx_fmt(name, sizeof name, "%s_%s:%s", dev, ports[p]->d_name, c);
				int words = strcmp(c, "port_xmit_data") == 0 || strcmp(c, "port_rcv_data") == 0;
				lx_fmt(descr, sizeof descr,
					 "InfiniBand %s port %s: %s%s (/sys/%s, node-wide; device in %s)",
					 dev, ports[p]->d_name, c,
					 words ? ", in 4-byte words (octets / 4)" : "", rel, loc);
				lx_src src = {.kind = LX_FIELD, .path = rel, .idx = 0, .width = 64};
				rc = lx_add(u, name, descr, "INFINIBAND", CLAB_SCOPE_NODE, 0, &src);
			}
			if (nc > 0)
				free_list(ctrs, nc);
		}
		if (np > 0)
			free_list(ports, np);
	}
	if (nd > 0)
		free_list(devs, nd);
	return rc;
}

static const char *const net_keys[] = {"sys_dir", NULL};

static int net_discover(lx_unit *u, clab_machine *m, const char *section)
{
	lx_dir(m, section, "sys_dir", "COUNTERLAB_SYSFS_ROOT", "/sys", u->root,
	       sizeof u->root);
	int rc = add_interfaces(u);
	if (!rc)
		rc = add_infiniband(u);
	if (rc)
		return rc;
	if (!u->n)
		return clab_seterr(CLAB_E_NODEV,
				   "linux-net: no interface statistics under %s/class/net and no InfiniBand ports under %s/class/infiniband",
				   u->root, u->root);
	u->description = "Linux network counters: every interface's statistics and InfiniBand port counters, node-wide";
	u->rules = "Kernel counters, always counting: any number of sets, each reads the change since its start. "
		   "IF:rx:FIELD and IF:tx:FIELD count the whole node's interface; DEV_PORT:COUNTER an InfiniBand port.";
	return CLAB_OK;
}

static int net_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	static const lx_kind_ops k = {"linux-net", net_keys, net_discover};
	return lx_open(&k, m, section, unit, d);
}

const clab_unit_ops clab_linux_net_ops = LX_UNIT_OPS("linux-net", net_keys, net_open);
