# counterlab: see README.md. Everything builds under $(BUILD) and is staged,
# with PAPI, in $(STAGE); `make install` copies that to $(PREFIX).
#
#   make deps    install the Debian packages we need and the deb-src entry
#                PAPI's source comes from (as root; otherwise says what to run)
#   make         PAPI 7 from Debian's source package, with our components
#   make check   every test (unit, PAPI-level, PAPI's ctests, sanitizers)
#   make check-quick   the same without the sanitizers and PAPI's suite
#   make check-papi-bgpm   PAPI's own BG/Q components over libbgpm (a second PAPI build)
#   make demo    set up, build and run the main demo
#   make bench   benchmarks -> build/bench-results/*.json (UPDATE=1: bench/results/)
#   make install PREFIX=/some/where    (default /usr/local); make uninstall
#   make fresh-check   README's commands on a freshly bootstrapped Debian 12 (root)
#   make clean

SHELL := /bin/bash
BUILD ?= build
STAGE := $(abspath $(BUILD))/prefix
PREFIX ?= /usr/local
PAPI_SRC ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# make splits paths at blanks, so one with a blank would be taken apart
# (and install, say, into the wrong directory): refuse it up front
$(foreach v,CURDIR BUILD PREFIX,$(if $(filter-out 1,$(words $($(v)))),\
	$(error $(v) "$($(v))" holds a blank, which make cannot take in a path; use a directory without one)))

CC ?= gcc
# warnings stop the build under the project's own flags; under a
# user's CFLAGS (another optimizer level finds other suspects) they stay
# warnings, unless WERROR=-Werror
WERROR ?= $(if $(filter undefined default file,$(origin CFLAGS)),-Werror,)
WARN := -Wall -Wextra $(WERROR)
CFLAGS ?= -O2 -g
CLAB_CFLAGS := -std=gnu11 $(WARN) -fPIC -fno-semantic-interposition -pthread -Iinclude -I$(BUILD)/gen
LIBS := -liniparser -lhwloc -lpfm -lpthread -lm

DEB_PACKAGES := build-essential dpkg-dev pkg-config libpfm4-dev libhwloc-dev \
	libcmocka-dev libiniparser-dev libpng-dev openmpi-bin libopenmpi-dev patchelf \
	gfortran papi-tools libfftw3-dev iproute2 qemu-user libcapstone-dev jq

# the emulator plugin (activity = emulated), against QEMU's plugin header
# from Debian's qemu source package (or QEMU_PLUGIN_H=/path/to/qemu-plugin.h)
EMU_PLUGIN := $(STAGE)/lib/counterlab/emulate.so
EMU_GUEST := $(STAGE)/lib/counterlab/guest.so
QEMU_PLUGIN_H ?= $(BUILD)/qemu-src/qemu-plugin.h
LIB_SRCS := $(wildcard framework/*.c sim_backends/activity/*.c sim_backends/bgq/*.c backends/linux/*.c \
	sim_backends/bgl/*.c sim_backends/torus/*.c sim_backends/gemini/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
GEN := $(BUILD)/gen/bgq_events.h
LIBCLAB := $(STAGE)/lib/libcounterlab.so
LIBBGPM := $(STAGE)/lib/libbgpm.so
LIBGPCD := $(STAGE)/lib/libgpcd.so
UTILS := $(STAGE)/bin/counterlab-native-avail $(STAGE)/bin/counterlab-netsim \
	$(STAGE)/bin/counterlab-map $(STAGE)/bin/counterlab-run $(EMU_PLUGIN) $(EMU_GUEST)
DATA_STAMP := $(BUILD)/data.stamp
PAPI_STAMP := $(BUILD)/papi.stamp
# PAPI's makefiles set a CFLAGS of their own (with defines they need): a
# variable given on our command line (CFLAGS=-O3) is not handed down to
# sub-makes as one of theirs (it stays in their environment, where their
# own settings come first); make's flags (-n, -k, -j) still are
MAKEOVERRIDES :=
PAPI_TREE := $(BUILD)/papi
COMPONENTS := clab_core clab_l2 clab_io clab_network clab_kernel clab_devices
COMPONENT_FILES := $(wildcard components/*/*.c components/*/*.h components/*/Rules.*)
# PAPI is configured again when the component list changes
COMPONENT_LIST := $(BUILD)/papi-components
$(shell mkdir -p $(BUILD) && echo '$(COMPONENTS)' | cmp -s - $(COMPONENT_LIST) || echo '$(COMPONENTS)' > $(COMPONENT_LIST))

# libcounterlab-mpi (live MPI traffic) and the instrumented MPI programs
MPICC ?= mpicc
LIBCLAB_MPI := $(STAGE)/lib/libcounterlab-mpi.so
APPS := $(patsubst tests/apps/%.c,$(STAGE)/bin/counterlab-%,$(wildcard tests/apps/*.c))

.PHONY: all deps deps-check check check-quick demo bench install uninstall fresh-check clean lib bgpm papi-bgpm check-papi-bgpm gpcd
# man pages: section 1 for each program, counterlab(7) for the environment
MANS := $(patsubst man/%,$(STAGE)/share/man/man1/%,$(wildcard man/*.1)) \
	$(patsubst man/%,$(STAGE)/share/man/man7/%,$(wildcard man/*.7))

all: $(PAPI_STAMP) $(UTILS) $(LIBCLAB_MPI) $(APPS) $(LIBBGPM) $(LIBGPCD) $(MANS)

# ---- Debian packages -------------------------------------------------------
deps:
	@NO_DEB_SRC=$(PAPI_SRC) bash utils/deps.sh install $(DEB_PACKAGES)

# Every build first says what is missing (and how to get it) instead of
# failing on a missing header.
deps-check:
	@bash utils/deps.sh check $(DEB_PACKAGES)

# ---- libcounterlab ----------------------------------------------------------
$(GEN): sim_backends/bgq/gen_events.awk sim_backends/bgq/data/bgq_events.csv \
		sim_backends/bgq/data/bgq_event_descr.csv sim_backends/bgq/data/bgq_relations.csv
	@mkdir -p $(@D)
	awk -F, -f $< sim_backends/bgq/data/bgq_event_descr.csv \
		sim_backends/bgq/data/bgq_relations.csv \
		sim_backends/bgq/data/bgq_events.csv > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(GEN) $(wildcard include/counterlab/*.h framework/*.h sim_backends/*/*.h backends/*/*.h) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) -c $< -o $@

$(LIBCLAB): $(LIB_OBJS)
	@mkdir -p $(@D) $(STAGE)/include/counterlab
	$(CC) -shared -Wl,-soname,libcounterlab.so -Wl,-Bsymbolic-functions -o $@ $^ $(LIBS)
	cp include/counterlab/*.h $(STAGE)/include/counterlab/

lib: $(LIBCLAB) $(DATA_STAMP)

$(DATA_STAMP): $(shell find machines -type f 2>/dev/null)
	@mkdir -p $(STAGE)/share/counterlab
	rm -rf $(STAGE)/share/counterlab/machines
	cp -r machines $(STAGE)/share/counterlab/machines
	@touch $@

$(STAGE)/share/man/man1/%: man/%
	install -D -m 644 $< $@
$(STAGE)/share/man/man7/%: man/%
	install -D -m 644 $< $@

$(STAGE)/bin/counterlab-netsim: utils/counterlab-netsim.c utils/heatmap.c utils/heatmap.h $(LIBCLAB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) utils/counterlab-netsim.c utils/heatmap.c -o $@ \
		-L$(STAGE)/lib -lcounterlab -lpng -lm -Wl,-rpath,$(STAGE)/lib

$(STAGE)/bin/%: utils/%.c $(LIBCLAB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) $< -o $@ -L$(STAGE)/lib -lcounterlab \
		-Wl,-rpath,$(STAGE)/lib

$(BUILD)/qemu-src/qemu-plugin.h: | deps-check
	bash utils/qemu-header.sh $(@D)

# -fno-tree-loop-distribute-patterns: the caches' LRU shifts move a few
# words, and a memmove call for each costs the plugin 9% of its run (a gcc
# flag: a compiler without it builds the plugin without it; asked only
# when the plugin is built)
NO_MEMCALLS = $(shell $(CC) -fno-tree-loop-distribute-patterns -x c -c /dev/null -o /dev/null 2>/dev/null \
	&& echo -fno-tree-loop-distribute-patterns)
$(EMU_PLUGIN): sim_backends/activity/emulated/plugin.c sim_backends/activity/hostmap.c \
		sim_backends/activity/emulated.h sim_backends/activity/hostmap.h $(QEMU_PLUGIN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) $(NO_MEMCALLS) -shared -I$(dir $(QEMU_PLUGIN_H)) \
		sim_backends/activity/emulated/plugin.c sim_backends/activity/hostmap.c -o $@ -lcapstone

$(EMU_GUEST): sim_backends/activity/emulated/guest.c sim_backends/activity/emulated.h sim_backends/activity/hostmap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) -shared $< -o $@ -ldl

$(LIBCLAB_MPI): sim_backends/activity/mpi/pmpi.c $(LIBCLAB)
	$(MPICC) $(CFLAGS) $(CLAB_CFLAGS) -shared -Wl,-soname,libcounterlab-mpi.so $< -o $@ \
		-L$(STAGE)/lib -lcounterlab -Wl,-rpath,$(STAGE)/lib

$(APPS): $(STAGE)/bin/counterlab-%: tests/apps/%.c tests/apps/app.h $(LIBCLAB_MPI) $(PAPI_STAMP)
	$(MPICC) $(CFLAGS) $(CLAB_CFLAGS) -I$(STAGE)/include $< -o $@ -L$(STAGE)/lib \
		-lcounterlab-mpi -lpapi -lcounterlab -lfftw3 -lm -Wl,-rpath,$(STAGE)/lib

# ---- libbgpm: IBM's BGPM API over libcounterlab (compat/bgpm) ------------
# Its event ids come from the same event table as the simulator's.
BGPM_GEN := $(BUILD)/gen/bgpm/include/events.h $(BUILD)/gen/bgpm_table.h
BGPM_HEADERS := $(shell find compat/bgpm/include -name '*.h')
$(BUILD)/gen/bgpm/include/events.h: compat/bgpm/gen_events.awk sim_backends/bgq/data/bgq_events.csv
	@mkdir -p $(@D)
	awk -F, -v out=header -f $^ > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/bgpm_table.h: compat/bgpm/gen_events.awk sim_backends/bgq/data/bgq_events.csv
	@mkdir -p $(@D)
	awk -F, -v out=table -f $^ > $@.tmp && mv $@.tmp $@

$(LIBBGPM): compat/bgpm/bgpm.c compat/bgpm/spi.c compat/bgpm/spi.h $(BGPM_HEADERS) $(BGPM_GEN) $(LIBCLAB)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) -Icompat/bgpm/include -shared -Wl,-soname,libbgpm.so \
		compat/bgpm/bgpm.c compat/bgpm/spi.c -o $@ -L$(STAGE)/lib -lcounterlab -Wl,-rpath,$(STAGE)/lib
	cp -r compat/bgpm/include/. $(STAGE)/include/
	cp $(BUILD)/gen/bgpm/include/events.h $(STAGE)/include/bgpm/include/

bgpm: $(LIBBGPM)

# ---- libgpcd: Cray's GPCD API over the simulated Gemini (compat/gpcd) ------
$(LIBGPCD): compat/gpcd/gpcd.c compat/gpcd/gpcd_lib.h $(LIBCLAB)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) -Icompat/gpcd -shared -Wl,-soname,libgpcd.so \
		compat/gpcd/gpcd.c -o $@ -L$(STAGE)/lib -lcounterlab -Wl,-rpath,$(STAGE)/lib
	cp compat/gpcd/gpcd_lib.h $(STAGE)/include/

gpcd: $(LIBGPCD)

# A second PAPI from the same source tree, for generic Linux, with PAPI's
# own bgpm/* components compiled against libbgpm, and our stand-in for its
# BG/Q CPU component (compat/bgpm/papi/bgpm_thread: Bgpm_Init per thread,
# and PAPI's linux-bgq-common.c). Not part of `make`: a full PAPI build.
PAPI_BGPM := $(BUILD)/papi-bgpm
PAPI_BGPM_STAMP := $(BUILD)/papi-bgpm.stamp
papi-bgpm: $(PAPI_BGPM_STAMP)
$(PAPI_BGPM_STAMP): $(LIBBGPM) $(BUILD)/papi-src.stamp $(wildcard compat/bgpm/papi/bgpm_thread/*)
	rm -rf $(PAPI_BGPM)
	cp -a $(BUILD)/papi-src/tree/. $(PAPI_BGPM)
	ln -sfn $(CURDIR)/compat/bgpm/papi/bgpm_thread $(PAPI_BGPM)/src/components/bgpm_thread
	cd $(PAPI_BGPM)/src && ac_cv_file__proc_sys_kernel_perf_event_paranoid=no ./configure \
		--prefix=$(abspath $(PAPI_BGPM))/prefix \
		--with-components="bgpm_thread bgpm/L2unit bgpm/IOunit bgpm/NWunit bgpm/CNKunit" \
		--with-shared-lib=yes --with-static-lib=no --with-shlib-tools CFLAGS="-I$(STAGE)/include" \
		> ../configure.log 2>&1 || { tail -20 ../configure.log; exit 1; }
	$(MAKE) -C $(PAPI_BGPM)/src -j2 BGPM_PREFIX=$(STAGE) > $(PAPI_BGPM)/make.log 2>&1 \
		|| { tail -30 $(PAPI_BGPM)/make.log; exit 1; }
	@touch $@

# The papi-bgpm build's components against ours (tests/papi-bgpm/run.sh);
# apart from `make check`, which does not build the second PAPI.
check-papi-bgpm: $(PAPI_STAMP) $(PAPI_BGPM_STAMP)
	BUILD=$(BUILD) PREFIX=$(STAGE) bash tests/papi-bgpm/run.sh

# ---- PAPI from Debian's source package --------------------------------------
# The source comes from `apt-get source papi` (a deb-src entry for this
# system's suite is added when none exists and we are root), or from
# PAPI_SRC=/path. We copy it to $(PAPI_TREE), link our components in, and
# configure it for the generic Linux platform so that PAPI's perf_event
# component stays out and ours is component 0 (PAPI loads presets only for
# component 0); nothing in PAPI's source is patched.
$(BUILD)/papi-src.stamp: | deps-check
	@mkdir -p $(BUILD)/papi-src
	@set -e; if [ -n "$(PAPI_SRC)" ]; then \
		test -f "$(PAPI_SRC)/src/configure" || { echo "make: PAPI_SRC=$(PAPI_SRC) holds no PAPI tree (no src/configure)"; \
			echo "  point it at an unpacked PAPI 7.0 (the directory that holds src/), or leave it unset"; exit 1; }; \
		ln -sfn "$(abspath $(PAPI_SRC))" $(BUILD)/papi-src/tree; \
	else \
		bash utils/papi-source.sh $(BUILD)/papi-src; \
	fi
	@touch $@

$(BUILD)/papi-configured.stamp: $(BUILD)/papi-src.stamp $(COMPONENT_LIST)
	rm -rf $(PAPI_TREE)
	cp -a $(BUILD)/papi-src/tree/. $(PAPI_TREE)
	for c in $(COMPONENTS) glue; do ln -sfn $(CURDIR)/components/$$c $(PAPI_TREE)/src/components/$$c; done
	cd $(PAPI_TREE)/src && ac_cv_file__proc_sys_kernel_perf_event_paranoid=no \
		./configure --prefix=$(STAGE) --with-components="$(COMPONENTS)" \
		--with-shared-lib=yes --with-static-lib=no --with-shlib-tools \
		LDFLAGS="-Wl,-rpath,$(STAGE)/lib" > $(abspath $(BUILD))/papi-configure.log 2>&1 \
		|| { tail -20 $(abspath $(BUILD))/papi-configure.log; \
		echo "make: PAPI's configure failed (log above, in full in $(BUILD)/papi-configure.log)"; exit 1; }
	@grep -q 'platform... linux-generic' $(BUILD)/papi-configure.log || { \
		echo "make: PAPI did not configure for the generic Linux platform, so counterlab's core would not be component 0"; \
		echo "  see $(BUILD)/papi-configure.log; is PAPI_SRC a PAPI 7.0 tree?"; exit 1; }
	@touch $@

# PAPI's own rules do not see our headers: relink libpapi whenever we changed.
$(PAPI_STAMP): $(BUILD)/papi-configured.stamp $(LIBCLAB) $(DATA_STAMP) $(COMPONENT_FILES)
	rm -f $(PAPI_TREE)/src/libpapi.so*
	$(MAKE) -C $(PAPI_TREE)/src -j$(JOBS) CLAB_ROOT=$(CURDIR) CLAB_PREFIX=$(STAGE) \
		> $(BUILD)/papi-make.log 2>&1 || { tail -30 $(BUILD)/papi-make.log; \
		echo "make: building PAPI with our components failed (log above, in full in $(BUILD)/papi-make.log)"; exit 1; }
	@# a new file: PAPI's install copies over the old one in place, which a
	@# program running from the staged tree has mapped (it would die of SIGBUS)
	rm -f $(STAGE)/lib/libpapi.so*
	$(MAKE) -C $(PAPI_TREE)/src CLAB_ROOT=$(CURDIR) CLAB_PREFIX=$(STAGE) install \
		> $(BUILD)/papi-install.log 2>&1 || { tail -30 $(BUILD)/papi-install.log; \
		echo "make: staging PAPI in $(STAGE) failed (log above, in full in $(BUILD)/papi-install.log)"; exit 1; }
	@# PAPI's preset table (papi_events.csv), read by machines whose
	@# components say papi_presets = auto (host); PAPI's install leaves it out
	install -D -m 644 $(PAPI_TREE)/src/papi_events.csv $(STAGE)/share/papi/papi_events.csv
	@touch $@

# ---- tests, demo, bench -----------------------------------------------------
check: all
	BUILD=$(BUILD) PREFIX=$(STAGE) CC=$(CC) bash tests/run.sh

check-quick: all
	QUICK=1 BUILD=$(BUILD) PREFIX=$(STAGE) CC=$(CC) bash tests/run.sh

demo: deps all
	PREFIX=$(STAGE) bash utils/demo.sh

# the committed figures in bench/results/ change only when asked (UPDATE=1)
bench: all
	PREFIX=$(STAGE) BUILD=$(BUILD) BOOKSIM=$(BOOKSIM) QEMU_PLUGIN_H=$(abspath $(QEMU_PLUGIN_H)) \
		BENCH_RESULTS=$(if $(filter-out 0,$(UPDATE)),$(CURDIR)/bench/results,$(abspath $(BUILD))/bench-results) bash bench/run.sh

# Installs what was built (no second build); see utils/install.sh.
install: all
	bash utils/install.sh install $(STAGE) $(abspath $(PREFIX))

uninstall:
	bash utils/install.sh uninstall $(abspath $(PREFIX))

# README's commands on a freshly bootstrapped Debian 12, as root and as a
# user, then an outside program against an installed tree (needs root and
# network; CI runs it after make check).
fresh-check:
	BUILD=$(BUILD) bash tests/fresh-machine.sh

clean:
	rm -rf $(BUILD)
