# counterlab: see README.md. Everything builds under $(BUILD); PAPI and our
# library, tools and data install into $(PREFIX).
#
#   make deps    install the Debian packages we need (as root)
#   make         PAPI 7 from Debian's source package, with our components
#   make check   every test (unit, PAPI-level, PAPI's ctests, sanitizers)
#   make demo    set up, build and run the main demo
#   make bench   benchmarks -> bench/results/*.json
#   make install PREFIX=/some/where
#   make clean

SHELL := /bin/bash
BUILD ?= build
PREFIX ?= $(CURDIR)/$(BUILD)/prefix
override PREFIX := $(abspath $(PREFIX))
PAPI_SRC ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

CC ?= gcc
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CLAB_CFLAGS := -std=gnu11 $(WARN) -fPIC -pthread -Iinclude -I$(BUILD)/gen \
	-DCLAB_DATADIR='"$(PREFIX)/share/counterlab"'
LIBS := -liniparser -lhwloc -lpthread

DEB_PACKAGES := build-essential dpkg-dev pkg-config libpfm4-dev libhwloc-dev \
	libcmocka-dev libiniparser-dev libpng-dev openmpi-bin libopenmpi-dev

LIB_SRCS := $(wildcard framework/*.c sim_backends/activity/*.c sim_backends/bgq/*.c \
	sim_backends/bgl/*.c sim_backends/torus/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
GEN := $(BUILD)/gen/bgq_events.h
LIBCLAB := $(PREFIX)/lib/libcounterlab.so
UTILS := $(PREFIX)/bin/counterlab-native-avail $(PREFIX)/bin/counterlab-netsim \
	$(PREFIX)/bin/counterlab-map
DATA_STAMP := $(BUILD)/data.stamp
PAPI_STAMP := $(BUILD)/papi.stamp
PAPI_TREE := $(BUILD)/papi
COMPONENTS := clab_core clab_l2 clab_io clab_network clab_kernel
COMPONENT_FILES := $(wildcard components/*/*.c components/*/*.h components/*/Rules.*)
# PAPI is configured again when the component list changes
COMPONENT_LIST := $(BUILD)/papi-components
$(shell mkdir -p $(BUILD) && echo '$(COMPONENTS)' | cmp -s - $(COMPONENT_LIST) || echo '$(COMPONENTS)' > $(COMPONENT_LIST))

.PHONY: all deps check demo bench install clean papi-source lib
all: $(PAPI_STAMP) $(UTILS)

# ---- Debian packages -------------------------------------------------------
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "deps: missing packages; run as root:"; \
		echo "  apt-get update && apt-get install -y $$missing"; exit 1; \
	fi; \
	echo "deps: installing $$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing

# ---- libcounterlab ----------------------------------------------------------
$(GEN): sim_backends/bgq/gen_events.awk sim_backends/bgq/data/bgq_events.csv \
		sim_backends/bgq/data/bgq_event_descr.csv
	@mkdir -p $(@D)
	awk -F, -f $< sim_backends/bgq/data/bgq_event_descr.csv \
		sim_backends/bgq/data/bgq_events.csv > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(GEN) $(wildcard include/counterlab/*.h framework/*.h sim_backends/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) -c $< -o $@

$(LIBCLAB): $(LIB_OBJS)
	@mkdir -p $(@D) $(PREFIX)/include/counterlab
	$(CC) -shared -Wl,-soname,libcounterlab.so -o $@ $^ $(LIBS)
	cp include/counterlab/*.h $(PREFIX)/include/counterlab/

lib: $(LIBCLAB) $(DATA_STAMP)

$(DATA_STAMP): $(shell find machines -type f 2>/dev/null)
	@mkdir -p $(PREFIX)/share/counterlab
	rm -rf $(PREFIX)/share/counterlab/machines
	cp -r machines $(PREFIX)/share/counterlab/machines
	@touch $@

$(PREFIX)/bin/counterlab-netsim: utils/counterlab-netsim.c utils/heatmap.c utils/heatmap.h $(LIBCLAB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) utils/counterlab-netsim.c utils/heatmap.c -o $@ \
		-L$(PREFIX)/lib -lcounterlab -lpng -lm -Wl,-rpath,$(PREFIX)/lib

$(PREFIX)/bin/%: utils/%.c $(LIBCLAB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLAB_CFLAGS) $< -o $@ -L$(PREFIX)/lib -lcounterlab \
		-Wl,-rpath,$(PREFIX)/lib

# ---- PAPI from Debian's source package --------------------------------------
# The source comes from `apt-get source papi` (a deb-src entry for this
# system's suite is added when none exists and we are root), or from
# PAPI_SRC=/path. We copy it to $(PAPI_TREE), link our components in, and
# configure it for the generic Linux platform so that PAPI's perf_event
# component stays out and ours is component 0 (PAPI loads presets only for
# component 0); nothing in PAPI's source is patched.
$(BUILD)/papi-src.stamp:
	@mkdir -p $(BUILD)/papi-src
	@set -e; if [ -n "$(PAPI_SRC)" ]; then \
		test -f "$(PAPI_SRC)/src/configure" || { echo "PAPI_SRC=$(PAPI_SRC) has no src/configure"; exit 1; }; \
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
		./configure --prefix=$(PREFIX) --with-components="$(COMPONENTS)" \
		--with-shared-lib=yes --with-static-lib=no --with-shlib-tools \
		LDFLAGS="-Wl,-rpath,$(PREFIX)/lib" > $(CURDIR)/$(BUILD)/papi-configure.log 2>&1 \
		|| { tail -20 $(CURDIR)/$(BUILD)/papi-configure.log; exit 1; }
	grep -q 'platform... linux-generic' $(BUILD)/papi-configure.log
	@touch $@

# PAPI's own rules do not see our headers: relink libpapi whenever we changed.
$(PAPI_STAMP): $(BUILD)/papi-configured.stamp $(LIBCLAB) $(DATA_STAMP) $(COMPONENT_FILES)
	rm -f $(PAPI_TREE)/src/libpapi.so*
	$(MAKE) -C $(PAPI_TREE)/src -j$(JOBS) CLAB_ROOT=$(CURDIR) CLAB_PREFIX=$(PREFIX) \
		> $(BUILD)/papi-make.log 2>&1 || { tail -30 $(BUILD)/papi-make.log; exit 1; }
	$(MAKE) -C $(PAPI_TREE)/src CLAB_ROOT=$(CURDIR) CLAB_PREFIX=$(PREFIX) install \
		> $(BUILD)/papi-install.log 2>&1 || { tail -30 $(BUILD)/papi-install.log; exit 1; }
	@touch $@

# ---- tests, demo, bench -----------------------------------------------------
check: all
	BUILD=$(BUILD) PREFIX=$(PREFIX) CC=$(CC) bash tests/run.sh

demo: deps all
	PREFIX=$(PREFIX) bash utils/demo.sh

bench: all
	PREFIX=$(PREFIX) BUILD=$(BUILD) bash bench/run.sh

install:
	$(MAKE) BUILD=$(BUILD)/install PREFIX=$(PREFIX) all

clean:
	rm -rf $(BUILD)
