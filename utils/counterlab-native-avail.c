/* counterlab-native-avail: lists a machine's components and events in the
 * block layout of papi_native_avail, plus what PAPI cannot show: machine
 * profile and backend, counters and width, scope, the counters each event
 * may use, overflow kind. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <counterlab/counterlab.h>
#include <counterlab/backend.h> /* the machine's cores and threads */

#define WIDTH 80

static void usage(FILE *f)
{
	fprintf(f,
		"usage: counterlab-native-avail [options]\n"
		"List the components and events of a counterlab machine.\n\n"
		"  -m, --machine SPEC   machine profile NAME-OR-PATH[:key=value,...]\n"
		"                       (default: $COUNTERLAB_MACHINE, else bgq)\n"
		"  -c, --component NAME only this component (core, l2, io, network, kernel)\n"
		"  -e, --event NAME     details of one event (qualifiers allowed)\n"
		"      --csv            one line per event, comma separated\n"
		"      --check EV1,EV2,...  whether these events fit in one event set on the\n"
		"                       machine, and if not, which one conflicts and why\n"
		"                       (an event twice conflicts, as in PAPI);\n"
		"                       exit 0 they fit, 1 they do not, 2 bad question\n"
		"      --list-machines  the machine profiles (COUNTERLAB_MACHINES or the\n"
		"                       installed ones), one a line with its description\n"
		"  -h, --help           this text\n");
}

static void rule(char c)
{
	for (int i = 0; i < WIDTH; i++)
		putchar(c);
	putchar('\n');
}

/* Prints text in a |...| box line, wrapped at word boundaries. */
static void boxed(int indent, const char *text)
{
	int room = WIDTH - 4 - indent;
	while (*text) {
		int len = (int)strlen(text);
		if (len > room) {
			len = room;
			while (len > 0 && text[len] != ' ')
				len--;
			if (len == 0)
				len = room;
		}
		printf("| %*s%-*.*s |\n", indent, "", room, len, text);
		text += len;
		while (*text == ' ')
			text++;
	}
}

static void format_ctrs(uint64_t mask, int n, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	if (n > 64) /* (a unit's counters past 64 have no bit: its positions repeat per part) */
		n = 64;
	for (int c = 0; c < n && o < len; c++) {
		if (!(mask & (1ull << c)))
			continue;
		int e = c;
		while (e + 1 < n && (mask & (1ull << (e + 1))))
			e++;
		o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "", c);
		if (e > c)
			o += (size_t)snprintf(buf + o, len - o, "-%d", e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, len, "fixed");
}

static void event_block(clab_component *c, const clab_component_info *ci,
			uint32_t code, int details)
{
	clab_event_info ei;
	char line[512], ctrs[128];
	clab_event_get_info(c, code, &ei);
	printf("| %-*s |\n", WIDTH - 4, ei.name);
	boxed(11, ei.descr);
	format_ctrs(ei.ctr_mask, ci->ncounters, ctrs, sizeof ctrs);
	if (ei.is_preset) {
		snprintf(line, sizeof line, "preset, %s%s%s", clab_derived_name(ei.derived),
			 ei.postfix ? " " : "", ei.postfix ? ei.postfix : "");
		boxed(11, line);
		for (int t = 0; ei.is_preset && t < ei.nterms; t++) {
			clab_event_info ti;
			clab_event_get_info(c, ei.terms[t], &ti);
			snprintf(line, sizeof line, "N%d = %s", t, ti.name);
			boxed(13, line);
		}
	} else {
		snprintf(line, sizeof line, "id %u, group %s, counts %s activity, counters %s",
			 ei.hw_id, ei.group, clab_scope_name(ei.scope), ctrs);
		boxed(11, line);
	}
	for (int q = 0; q < clab_component_nquals(c); q++) {
		clab_qual_info qi;
		clab_component_qual(c, q, &qi);
		if (!(ei.quals & (1u << q)))
			continue;
		snprintf(line, sizeof line, ":%s=%llu..%#llx  %s", qi.name,
			 (unsigned long long)qi.min, (unsigned long long)qi.max, qi.descr);
		boxed(5, line);
	}
	if (details) {
		snprintf(line, sizeof line, "code %#x in component %s", ei.code, ci->name);
		boxed(11, line);
	}
	rule('-');
}

static void component_block(clab_component *c, const clab_component_info *ci)
{
	char line[512];
	rule('=');
	printf(" Native Events in Component: %s\n", ci->name);
	rule('=');
	snprintf(line, sizeof line, "%s", ci->description);
	boxed(0, line);
	if (clab_component_disabled(c)) { /* as papi_component_avail says it */
		snprintf(line, sizeof line, "backend %s: disabled: %s", ci->backend,
			 clab_component_disabled(c));
		boxed(0, line);
		rule('-');
		return;
	}
	snprintf(line, sizeof line,
		 "backend %s: %d counters of %d bits, one unit per %s, overflow %s",
		 ci->backend, ci->ncounters, ci->width, clab_scope_name(ci->scope),
		 clab_overflow_name(ci->overflow));
	if (ci->overflow != CLAB_OVF_NONE)
		snprintf(line + strlen(line), sizeof line - strlen(line),
			 " (within %u cycles)", ci->overflow_latency);
	snprintf(line + strlen(line), sizeof line - strlen(line), ", %s",
		 ci->self_multiplex ? "multiplexed by the kernel"
		 : ci->can_multiplex ? "can multiplex" : "no multiplexing");
	boxed(0, line);
	if (*ci->rules) {
		snprintf(line, sizeof line, "%s", ci->rules);
		boxed(0, line);
	}
	if (*ci->note) {
		snprintf(line, sizeof line, "Not here: %s", ci->note);
		boxed(0, line);
	}
	if (*ci->presets_note) {
		snprintf(line, sizeof line, "Presets: %s", ci->presets_note);
		boxed(0, line);
	}
	rule('-');
}

/* The columns of --csv: everything the listing shows, component facts
 * repeated on each event's line. */
static const char *const csv_columns[] = {
	"component", "backend", "unit_counters", "counter_width", "unit_scope",
	"overflow", "overflow_latency", "multiplex", "rules", "event", "code",
	"kind", "derived", "formula", "terms", "hw_id", "group", "scope",
	"counters", "qualifiers", "description", NULL,
};

/* One field, quoted as RFC 4180 wants when it holds a comma, a quote or a
 * line break. */
static void csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
}

static void csv_header(void)
{
	for (int i = 0; csv_columns[i]; i++)
		csv_field(csv_columns[i], !csv_columns[i + 1]);
}

static void csv_event(clab_component *c, const clab_component_info *ci,
		      uint32_t code)
{
	clab_event_info ei;
	char ctrs[128], num[5][32], terms[512] = "", quals[512] = "";
	clab_event_get_info(c, code, &ei);
	format_ctrs(ei.ctr_mask, ci->ncounters, ctrs, sizeof ctrs);
	for (int t = 0; t < ei.nterms; t++) {
		clab_event_info ti;
		clab_event_get_info(c, ei.terms[t], &ti);
		snprintf(terms + strlen(terms), sizeof terms - strlen(terms), "%sN%d=%s",
			 t ? " " : "", t, ti.name);
	}
	for (int q = 0; q < clab_component_nquals(c); q++) {
		clab_qual_info qi;
		clab_component_qual(c, q, &qi);
		if (ei.quals & (1u << q))
			snprintf(quals + strlen(quals), sizeof quals - strlen(quals),
				 "%s:%s=%llu..%#llx", quals[0] ? " " : "", qi.name,
				 (unsigned long long)qi.min, (unsigned long long)qi.max);
	}
	snprintf(num[0], sizeof num[0], "%d", ci->ncounters);
	snprintf(num[1], sizeof num[1], "%d", ci->width);
	snprintf(num[2], sizeof num[2], "%u", ci->overflow_latency);
	snprintf(num[3], sizeof num[3], "%#x", ei.code);
	snprintf(num[4], sizeof num[4], "%u", ei.hw_id);
	csv_field(ci->name, 0);
	csv_field(ci->backend, 0);
	csv_field(num[0], 0);
	csv_field(num[1], 0);
	csv_field(clab_scope_name(ci->scope), 0);
	csv_field(clab_overflow_name(ci->overflow), 0);
	csv_field(ci->overflow != CLAB_OVF_NONE ? num[2] : "", 0);
	csv_field(ci->can_multiplex ? "yes" : "no", 0);
	csv_field(ci->rules ? ci->rules : "", 0);
	csv_field(ei.name, 0);
	csv_field(num[3], 0);
	csv_field(ei.is_preset ? "preset" : "native", 0);
	csv_field(clab_derived_name(ei.derived), 0);
	csv_field(ei.postfix ? ei.postfix : "", 0);
	csv_field(terms, 0);
	csv_field(ei.is_preset ? "" : num[4], 0);
	csv_field(ei.group ? ei.group : "", 0);
	csv_field(clab_scope_name(ei.scope), 0);
	csv_field(ei.is_preset ? "" : ctrs, 0);
	csv_field(quals, 0);
	csv_field(ei.descr ? ei.descr : "", 1);
}

/* Finds an event: "COMPONENT:::NAME" (as PAPI spells it) looks in that
 * component, a bare name in every one (or the -c one). When no component
 * has it, the message (in why) is the one of the component that knows the
 * name but not its qualifiers, else it says that none knows it. */
static clab_component *find_event(clab_machine *m, const char *only, const char *event,
				  uint32_t *code, char *why, size_t len)
{
	const char *sep = strstr(event, ":::");
	char comp[64] = "";
	why[0] = 0;
	if (sep) {
		if ((size_t)(sep - event) >= sizeof comp || sep == event) {
			snprintf(why, len, "'%s': no component name before ':::'", event);
			return NULL;
		}
		snprintf(comp, sizeof comp, "%.*s", (int)(sep - event), event);
		if (only && strcmp(only, comp)) {
			snprintf(why, len, "event '%s' names component %s, but -c says %s", event, comp,
				 only);
			return NULL;
		}
		if (!clab_machine_component(m, comp)) {
			snprintf(why, len, "%s", clab_errmsg());
			return NULL;
		}
		only = comp;
		event = sep + 3;
	}
	for (int i = 0; i < clab_machine_ncomponents(m); i++) {
		clab_component *c = clab_machine_component_at(m, i);
		clab_component_info ci;
		clab_component_get_info(c, &ci);
		if (only && strcmp(only, ci.name))
			continue;
		int rc = clab_event_lookup(c, event, code);
		if (!rc)
			return c;
		/* the name is this component's, the rest is wrong */
		if (rc != CLAB_E_NOEVENT && !why[0])
			snprintf(why, len, "component %s: %s", ci.name, clab_errmsg());
		else if (only && !why[0])
			snprintf(why, len, "%s", clab_errmsg());
	}
	if (!why[0])
		snprintf(why, len, "no component of machine %s has an event '%s' (list them with counterlab-native-avail)",
			 clab_machine_name(m), event);
	return NULL;
}

/* One event in detail. */
static int show_event(clab_machine *m, const char *only, const char *event)
{
	char why[512];
	uint32_t code;
	clab_component *c = find_event(m, only, event, &code, why, sizeof why);
	if (!c) {
		fprintf(stderr, "counterlab-native-avail: %s\n", why);
		return 1;
	}
	clab_component_info ci;
	clab_component_get_info(c, &ci);
	printf("Event details (machine %s, component %s):\n", clab_machine_name(m), ci.name);
	rule('-');
	event_block(c, &ci, code, 1);
	return 0;
}

/* --check EV1,EV2,...: adds the events one by one to one event set, as
 * PAPI_add_event does; 0 when all fit, 1 at the first that does not (with
 * the framework's reason), 2 when the question is malformed. */
static int check_events(clab_machine *m, const char *only, const char *list)
{
	char *copy = strdup(list), why[512], first[256] = "", refused[1024] = "";
	const char *names[CLAB_EVSET_MAX_EVENTS];
	uint32_t codes[CLAB_EVSET_MAX_EVENTS];
	clab_component_info si;
	clab_component *set_comp = NULL;
	clab_thread *t = NULL;
	clab_evset *s = NULL;
	int rc = 0, n = 0, item = 0;
	if (!copy)
		return 2;
	/* every item is an event: an empty one (",A", "A,,B", "A,") is refused
	 * before any is added, not skipped */
	for (const char *p = list;; p++) {
		item++;
		if (*p == ',' || !*p) {
			fprintf(stderr, "counterlab-native-avail: --check '%s': item %d is empty; "
				"--check wants EVENT[,EVENT...]\n", list, item);
			free(copy);
			return 2;
		}
		if (!(p = strchr(p, ',')))
			break;
	}
	for (char *next = copy, *e; next && !rc;) {
		e = strsep(&next, ",");
		uint32_t code;
		clab_component *c = find_event(m, only, e, &code, why, sizeof why);
		if (!c) {
			fprintf(stderr, "counterlab-native-avail: %s\n", why);
			rc = 2;
			break;
		}
		clab_component_info ci;
		clab_component_get_info(c, &ci);
		if (!set_comp) {
			int err = clab_thread_attach(m, &t);
			if (!err)
				err = clab_evset_create(c, t, &s);
			if (err) {
				fprintf(stderr, "counterlab-native-avail: cannot make an event set of component %s: %s\n",
					ci.name, clab_errmsg());
				rc = 2;
				break;
			}
			set_comp = c;
			snprintf(first, sizeof first, "%s", e);
		} else if (c != set_comp) {
			snprintf(refused, sizeof refused,
				 "does not fit: %s is an event of component %s, %s of %s: an event set "
				 "counts one component's events (use one set per component)\n",
				 e, ci.name, first, si.name);
			rc = 1;
			break;
		}
		si = ci;
		/* PAPI_add_event refuses an event the set holds (PAPI_ECNFLCT),
		 * however it is spelled; the framework would count it twice */
		int dup = -1;
		for (int i = 0; i < n && dup < 0; i++)
			if (codes[i] == code)
				dup = i;
		if (dup >= 0) {
			char as[300] = "";
			if (strcmp(e, names[dup]))
				snprintf(as, sizeof as, " (as %s)", names[dup]);
			snprintf(refused, sizeof refused,
				 "does not fit: %s: the event set already holds it%s; "
				 "PAPI_add_event refuses an event twice\n", e, as);
			rc = 1;
			break;
		}
		if (n == CLAB_EVSET_MAX_EVENTS || clab_evset_add(s, code)) {
			snprintf(refused, sizeof refused, "does not fit: %s: %s\n", e,
				 n == CLAB_EVSET_MAX_EVENTS ? "too many events" : clab_errmsg());
			rc = 1;
			break;
		}
		codes[n] = code;
		names[n++] = e;
	}
	/* each event's counters in the set as it ends (an add may move the
	 * events before it) */
	for (int i = 0; i < n && rc != 2; i++) {
		char ctrs[128];
		format_ctrs(clab_evset_counters(s, i), si.ncounters, ctrs, sizeof ctrs);
		printf("%-40s component %s, counter %s\n", names[i], si.name, ctrs);
	}
	fputs(refused, stdout);
	if (!rc)
		printf("fits: %d event%s in one event set on machine %s\n", n, n == 1 ? "" : "s",
		       clab_machine_name(m));
	if (s)
		clab_evset_destroy(s);
	if (t)
		clab_thread_detach(t);
	free(copy);
	return rc;
}

static void list_machine(const char *name, const char *descr, void *arg)
{
	(void)arg;
	printf("%-16s %s\n", name, descr);
}

static int list_machines(void)
{
	printf("Machine profiles in %s (COUNTERLAB_MACHINE=NAME[:key=value,...]):\n",
	       clab_machine_profiles_dir());
	if (clab_machine_profiles(1, list_machine, NULL) < 0) {
		fprintf(stderr, "counterlab-native-avail: %s\n", clab_errmsg());
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"machine", required_argument, 0, 'm'},
		{"component", required_argument, 0, 'c'},
		{"event", required_argument, 0, 'e'},
		{"csv", no_argument, 0, 'C'},
		{"check", required_argument, 0, 'k'},
		{"list-machines", no_argument, 0, 'l'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *spec = NULL, *only = NULL, *event = NULL, *check = NULL;
	int csv = 0, machines = 0, o;
	while ((o = getopt_long(argc, argv, "m:c:e:h", opts, NULL)) != -1) {
		switch (o) {
		case 'm': spec = optarg; break;
		case 'c': only = optarg; break;
		case 'e': event = optarg; break;
		case 'C': csv = 1; break;
		case 'k': check = optarg; break;
		case 'l': machines = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "counterlab-native-avail: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!!check + !!event + csv + machines > 1) {
		fprintf(stderr, "counterlab-native-avail: give one of --check, --event, --csv and --list-machines\n");
		return 2;
	}
	if (machines)
		return list_machines();
	clab_machine *m;
	int rc = clab_machine_open(spec, &m);
	if (rc) {
		fprintf(stderr, "counterlab-native-avail: %s: %s\n", clab_strerror(rc),
			clab_errmsg());
		return check ? 2 : 1;
	}
	if (only && !clab_machine_component(m, only)) {
		fprintf(stderr, "counterlab-native-avail: %s\n", clab_errmsg());
		clab_machine_close(m);
		return 1;
	}
	if (check || event) {
		rc = check ? check_events(m, only, check) : show_event(m, only, event);
		clab_machine_close(m);
		return rc;
	}
	if (csv)
		csv_header();
	else {
		printf("Available native events and hardware information.\n");
		rule('-');
		printf("%-25s: %s\n", "Machine profile", clab_machine_name(m));
		printf("%-25s: %s\n", "Profile file", clab_machine_path(m));
		printf("%-25s: %s\n", "Description", clab_machine_description(m));
		const char *topo = clab_machine_setting(m, "topology");
		printf("%-25s: %s (%s)\n", "Node topology", topo ? topo : "core:1 pu:1",
		       topo && strcmp(topo, "host") == 0 ? "this machine, as hwloc finds it" : "hwloc synthetic");
		/* a host machine's counters are the kernel's: no simulated clock */
		const char *clock = clab_machine_setting(m, "clock");
		if (!(topo && strcmp(topo, "host") == 0) || clock)
			printf("%-25s: %s\n", "Clock", clock ? clock : "virtual");
		rule('-');
	}
	int total = 0;
	for (int i = 0; i < clab_machine_ncomponents(m); i++) {
		clab_component *c = clab_machine_component_at(m, i);
		clab_component_info ci;
		clab_component_get_info(c, &ci);
		if (only && strcmp(only, ci.name))
			continue;
		if (!csv)
			component_block(c, &ci);
		for (int k = 0; k < ci.nnative + ci.npreset; k++) {
			if (csv)
				csv_event(c, &ci, (uint32_t)k);
			else
				event_block(c, &ci, (uint32_t)k, 0);
		}
		total += ci.nnative + ci.npreset;
	}
	if (!csv)
		printf("\nTotal events reported: %d\n", total);
	clab_machine_close(m);
	return 0;
}
