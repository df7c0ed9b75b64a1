/* PAPI's counting domains on the simulated node: the core counts user and
 * kernel context apart (the kernel's share comes from the CNK's system
 * calls and timer interrupts), both by default as PAPI's BG/Q component
 * did; node-wide units count every context alike and refuse a part. */
#include "check.h"

static int domain_set(const char *event, int domain)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_named_event(es, event));
	PAPI_option_t o = {.domain = {.eventset = es, .domain = domain}};
	CHECK_PAPI(PAPI_set_opt(PAPI_DOMAIN, &o));
	return es;
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=1000000", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	CHECK(ci->available_domains == (PAPI_DOM_USER | PAPI_DOM_KERNEL),
	      "core domains %#x", ci->available_domains);
	CHECK(ci->default_domain == (PAPI_DOM_USER | PAPI_DOM_KERNEL),
	      "core default domain %#x", ci->default_domain);

	/* the same 10^6 cycles (one tick per read) counted three ways */
	const int dom[3] = {PAPI_DOM_USER, PAPI_DOM_KERNEL, PAPI_DOM_ALL};
	long long v[3][1];
	for (int i = 0; i < 3; i++) {
		int es = domain_set("PAPI_TOT_CYC", dom[i]);
		CHECK_PAPI(PAPI_start(es));
		CHECK_PAPI(PAPI_stop(es, v[i]));
		drop_set(es);
	}
	CHECK(v[2][0] == 1000000, "PAPI_DOM_ALL cycles %lld", v[2][0]);
	CHECK(v[1][0] > 0 && v[1][0] < v[2][0] / 100, "kernel cycles %lld", v[1][0]);
	/* three windows of the thread's life: the kernel's share of each is
	 * rounded down apart */
	CHECK(llabs(v[0][0] + v[1][0] - v[2][0]) <= 1, "user %lld + kernel %lld != all %lld",
	      v[0][0], v[1][0], v[2][0]);

	/* the domain cannot change while the set runs */
	int es = domain_set("PAPI_TOT_CYC", PAPI_DOM_USER);
	CHECK_PAPI(PAPI_start(es));
	PAPI_option_t o = {.domain = {.eventset = es, .domain = PAPI_DOM_KERNEL}};
	CHECK(PAPI_set_opt(PAPI_DOMAIN, &o) == PAPI_EISRUN, "domain changed while running");
	CHECK_PAPI(PAPI_stop(es, NULL));
	drop_set(es);

	/* the L2 unit counts the node, every context alike */
	int cidx = PAPI_get_component_index("l2");
	CHECK(cidx > 0, "no l2 component");
	ci = PAPI_get_component_info(cidx);
	CHECK(ci->available_domains == PAPI_DOM_ALL, "l2 domains %#x", ci->available_domains);
	es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_named_event(es, "l2:::PEVT_L2_HITS"));
	o.domain.eventset = es;
	o.domain.domain = PAPI_DOM_USER;
	int rc = PAPI_set_opt(PAPI_DOMAIN, &o);
	CHECK(rc == PAPI_EINVAL_DOM, "l2 user domain: %s", PAPI_strerror(rc));
	o.domain.domain = PAPI_DOM_ALL;
	CHECK_PAPI(PAPI_set_opt(PAPI_DOMAIN, &o));
	drop_set(es);
	PAPI_shutdown();
	puts("PASSED");
	return 0;
}
