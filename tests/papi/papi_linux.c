/* The Linux components of the linux-proc machine through PAPI, with counts
 * this program causes itself: N bytes written to a file make wchar grow by
 * N or more; K bytes sent over a loopback TCP connection make lo's rx and tx
 * bytes grow by K or more; blocking on a pipe is a voluntary context switch.
 * (Other processes may add to the node-wide counts, never take away.) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

#define NBYTES (3 * 65536)
#define KBYTES (1 << 20)

static void write_file(size_t n)
{
	char path[] = "/tmp/clab-papi-linux-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	static char buf[65536];
	for (size_t done = 0; done < n; done += sizeof buf)
		CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "write");
	close(fd);
	unlink(path);
}

/* K bytes from one end of a loopback TCP connection to the other. */
static void loopback(size_t k)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(ls >= 0, "socket");
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	CHECK(bind(ls, (struct sockaddr *)&a, sizeof a) == 0, "bind");
	CHECK(listen(ls, 1) == 0, "listen");
	CHECK(getsockname(ls, (struct sockaddr *)&a, &len) == 0, "getsockname");
	int c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0, "connect");
	int s = accept(ls, NULL, NULL);
	CHECK(s >= 0, "accept");
	static char buf[65536];
	size_t sent = 0, got = 0;
	while (got < k) {
		if (sent < k) {
			ssize_t w = send(c, buf, sizeof buf, MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
		}
		ssize_t r = recv(s, buf, sizeof buf, sent < k ? MSG_DONTWAIT : 0);
		if (r > 0)
			got += (size_t)r;
	}
	close(c);
	close(s);
	close(ls);
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "linux-proc", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));

	/* the MSR unit counts where the host lets it, else it says why */
	int core = PAPI_get_component_index("core");
	CHECK(core >= 0, "no core component");
	const PAPI_component_info_t *ci = PAPI_get_component_info(core);
	if (ci->disabled)
		CHECK(strstr(ci->disabled_reason, "msr") && strstr(ci->disabled_reason, "linux-msr"),
		      "core disabled without a reason naming MSRs: %s", ci->disabled_reason);
	printf("core (linux-msr): %s\n", ci->disabled ? ci->disabled_reason : "enabled");
	for (const char *const *c = (const char *const[]){"io", "network", "kernel", NULL}; *c; c++) {
		int cidx = PAPI_get_component_index(*c);
		CHECK(cidx >= 0 && !PAPI_get_component_info(cidx)->disabled, "%s: %s", *c,
		      cidx >= 0 ? PAPI_get_component_info(cidx)->disabled_reason : "missing");
	}

	/* io: this process's writes */
	const char *io[] = {"io:::wchar", "io:::syscw", "io:::rchar"};
	int es = make_set(io, 3);
	long long v[3];
	CHECK_PAPI(PAPI_start(es));
	write_file(NBYTES);
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[0] >= NBYTES, "wchar grew %lld after writing %d bytes", v[0], NBYTES);
	CHECK(v[1] >= NBYTES / 65536, "syscw grew %lld after %d writes", v[1], NBYTES / 65536);
	CHECK(v[2] >= 0, "rchar went back: %lld", v[2]);
	printf("wrote %d bytes: wchar +%lld, syscw +%lld\n", NBYTES, v[0], v[1]);
	drop_set(es);

	/* network: lo carries what we send ourselves */
	const char *net[] = {"network:::lo:rx:bytes", "network:::lo:tx:bytes",
			     "network:::lo:rx:packets"};
	es = make_set(net, 3);
	CHECK_PAPI(PAPI_start(es));
	loopback(KBYTES);
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[0] >= KBYTES && v[1] >= KBYTES, "lo rx %lld, tx %lld after %d bytes", v[0], v[1],
	      KBYTES);
	CHECK(v[2] >= 1, "lo rx packets %lld", v[2]);
	printf("sent %d bytes over lo: rx +%lld, tx +%lld, %lld packets\n", KBYTES, v[0], v[1], v[2]);
	drop_set(es);

	/* kernel: blocking on an empty pipe gives the CPU up */
	const char *kern[] = {"kernel:::voluntary_ctxt_switches", "kernel:::interrupts:LOC",
			      "kernel:::ctxt"};
	es = make_set(kern, 3);
	CHECK_PAPI(PAPI_start(es));
	for (int i = 0; i < 3; i++)
		usleep(1000);
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[0] >= 3, "voluntary switches %lld after 3 sleeps", v[0]);
	CHECK(v[2] >= v[0], "node context switches %lld < the thread's %lld", v[2], v[0]);
	printf("3 sleeps: voluntary switches +%lld, LOC interrupts +%lld, node switches +%lld\n",
	       v[0], v[1], v[2]);
	drop_set(es);

	/* bad names: PAPI's "no such event", with the name's own message */
	int bad = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&bad));
	CHECK(PAPI_add_named_event(bad, "network:::nosuchif:rx:bytes") == PAPI_ENOEVNT, "unknown interface");
	CHECK(PAPI_add_named_event(bad, "kernel:::interrupts:LOC:cpu=4096") != PAPI_OK, "cpu out of range");
	CHECK(PAPI_add_named_event(bad, "io:::wchar:cpu=0") != PAPI_OK, "qualifier on wchar");
	CHECK_PAPI(PAPI_destroy_eventset(&bad));
	PAPI_shutdown();
	printf("papi_linux: PASSED\n");
	return 0;
}
