# pam_localauth — build, install, test, demo, bench.
# `make demo` and `make test` work on a fresh Debian 12 machine as root: they install what is missing.

PREFIX      ?= /usr
DESTDIR     ?=
PAMDIR      ?= $(shell pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security
SBINDIR     ?= $(PREFIX)/sbin
SWIFT       ?= swift
BUILD       := build
MODULE      := $(BUILD)/pam_localauth.so
CTL         := $(BUILD)/localauthctl
HARNESS     := $(BUILD)/PAMHarness
# The module's link (measured with make bench, docs/PERFORMANCE.md): lld with identical-code folding, packed
# relative relocations (DT_RELR) and -O1 shrink what dlopen reads; libstdc++ and the unwinder are linked in
# statically (hidden by the version script), so that loading the module no longer loads and relocates
# libstdc++.so.6 and libgcc_s.so.1 (about 1 ms of every sudo). -lstdc++ comes from the Swift driver, so a
# folder holding only libstdc++.a is put ahead of gcc's own on the search path. module-order.txt lists the
# functions an authentication runs (scripts/module-order.sh, from callgrind) so that they sit together:
# the pages a sudo faults in drop from about 3.3 to 1.6 MiB; a stale name in it is skipped, never an error.
# -function-sections gives each Swift function its own section, so that the ordering and --gc-sections reach
# our own code too. Concrete generic metadata is reached through accessors rather than mangled names, so a
# sudo does not start the runtime's demangler and conformance scan (about 150,000 instructions).
# PAM_LOCALAUTH_MODULE turns on Sources/ModuleLink (the runtime's argv capture left out, see swift_argv.c).
CXX_STATIC_DIR := .build-module/static-cxx
MODULE_FLAGS := -Xswiftc -static-stdlib -Xlinker --version-script=$(CURDIR)/exports.map \
                -Xswiftc -Xfrontend -Xswiftc -function-sections \
                -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
                -Xcc -DPAM_LOCALAUTH_MODULE \
                -Xlinker -z -Xlinker nodelete -Xlinker --gc-sections \
                -Xswiftc -use-ld=lld -Xlinker --icf=all -Xlinker -z -Xlinker pack-relative-relocs -Xlinker -O1 \
                -Xswiftc -L$(CURDIR)/$(CXX_STATIC_DIR) -Xlinker $(shell gcc -print-file-name=libgcc_eh.a) \
                -Xlinker --symbol-ordering-file=$(CURDIR)/module-order.txt -Xlinker --no-warn-symbol-ordering
DEBIAN_PACKAGES := libpam0g-dev libcrypt-dev pamtester libpam-wrapper pkg-config binutils openssh-server openssh-client

.PHONY: all deps module tools check-load test reliability-heavy test-extra fuzz-short demo bench install uninstall check-install clean

all: module tools

# Installs the Debian packages the build and the tests need, if any is missing.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The installable module: release, Swift runtime linked statically, only pam_sm_* exported, -z nodelete, and no
# $ORIGIN run path (--disable-local-rpath): the module's own folder is never searched for libraries.
module: deps
	@mkdir -p $(CXX_STATIC_DIR) && ln -sf $(shell gcc -print-file-name=libstdc++.a) $(CXX_STATIC_DIR)/libstdc++.a
	@# SwiftPM relinks on source changes only: a new symbol order or version script must relink too.
	@for f in module-order.txt exports.map; do [ $$f -nt .build-module/release/libpam_localauth.so ] && rm -f .build-module/release/libpam_localauth.so; done; true
	$(SWIFT) build -c release --product pam_localauth --scratch-path .build-module --disable-local-rpath $(MODULE_FLAGS)
	@mkdir -p $(BUILD)
	cp .build-module/release/libpam_localauth.so $(MODULE)
	strip --strip-unneeded $(MODULE)

tools: deps
	$(SWIFT) build -c release --product localauthctl
	$(SWIFT) build -c release --product PAMHarness
	@mkdir -p $(BUILD)
	cp .build/release/localauthctl $(CTL)
	cp .build/release/PAMHarness $(HARNESS)

# dlopen(RTLD_NOW) of the installed-shape module, and its exports.
check-load: module
	@bad=$$(nm -D --defined-only $(MODULE) | awk '$$2 ~ /^[A-Z]$$/ && $$3 !~ /^pam_sm_/'); \
	if [ -n "$$bad" ]; then echo "Unexpected exported symbols:"; echo "$$bad"; exit 1; fi
	@readelf -d $(MODULE) | grep -q 'Flags:.*NODELETE' || { echo "$(MODULE) lacks the NODELETE flag"; exit 1; }
	@if readelf -d $(MODULE) | grep -Eq 'NEEDED.*(libstdc\+\+|libgcc_s)'; then echo "$(MODULE) still needs libstdc++ or libgcc_s"; exit 1; fi
	@if readelf -d $(MODULE) | grep -Eq 'RUNPATH|RPATH'; then echo "$(MODULE) has a run path; libraries (and libcrypt's dlopen) must come from the system's"; exit 1; fi
	@if readelf -d $(MODULE) | grep -q 'NEEDED.*libcrypt'; then echo "$(MODULE) links libcrypt; it should open it on first use (Sources/CCrypt)"; exit 1; fi
	@if nm -D --undefined-only $(MODULE) | grep -q sscanf; then echo "$(MODULE) still has the runtime's argv capture (Sources/ModuleLink)"; exit 1; fi
	@echo "Exports: $$(nm -D --defined-only $(MODULE) | awk '$$2 ~ /^[A-Z]$$/ {print $$3}' | tr '\n' ' ')"

# Everything `make test` runs: unit, integration (real PAM), reliability (crash, concurrency, fuzz).
TEST_ENV := LOCALAUTH_MODULE=$(CURDIR)/$(MODULE) LOCALAUTH_CTL=$(CURDIR)/$(CTL) LOCALAUTH_HARNESS=$(CURDIR)/$(HARNESS)

# The figures the tests print as "RELIABILITY:" lines go into the README's RELIABILITY section.
test: SHELL := /bin/bash -o pipefail
test: deps module tools check-load
	@mkdir -p $(BUILD)
	$(TEST_ENV) $(SWIFT) test 2>&1 | tee $(BUILD)/swift-test.log
	$(MAKE) --no-print-directory test-extra 2>&1 | tee $(BUILD)/test-extra.log
	@grep -h '^RELIABILITY:' $(BUILD)/swift-test.log $(BUILD)/test-extra.log | sort \
	  | scripts/readme-section.sh RELIABILITY "make test"
	@echo "make test: all passed; figures written to README.md (RELIABILITY)."

# The heavier reliability runs (AddressSanitizer, valgrind), with their figures in the README too.
reliability-heavy: SHELL := /bin/bash -o pipefail
reliability-heavy: deps
	$(MAKE) --no-print-directory asan valgrind 2>&1 | tee $(BUILD)/reliability-heavy.log
	@grep -h '^RELIABILITY:' $(BUILD)/reliability-heavy.log | scripts/readme-section.sh RELIABILITY-HEAVY "make reliability-heavy"

# Checks that are not Swift tests (owned by their issues' sections below); each must fail loudly.
test-extra: fuzz-short check-install

# ---- Real PAM (issue 3): harness-driven checks beyond `swift test` ------------------------------
.PHONY: check-pam check-cycles

# The real-PAM tests alone (they also run in `make test`): every return-code row through PAMHarness under
# pam_start_confdir and pamtester under pam_wrapper, chauthtok, sessions, not-root, dlopen and exports, cycles.
check-pam: deps module tools
	$(TEST_ENV) $(SWIFT) test --filter IntegrationTests

# 100,000 pam_start/pam_authenticate/pam_end cycles in one process (feature= mode, user root, private state):
# prints resident memory after warm-up, midway and at the end, and the time per cycle.
CYCLES ?= 100000
check-cycles: module tools
	@dir=$$(mktemp -d /tmp/localauth-cycles.XXXXXX); trap 'rm -rf '"$$dir" EXIT; \
	mkdir -m 0700 $$dir/state; : > $$dir/empty.conf; \
	printf 'auth [success=done ignore=ignore default=die] %s state_dir=%s conf=%s feature=cycles\nauth required pam_permit.so\n' \
	  $(CURDIR)/$(MODULE) $$dir/state $$dir/empty.conf > $$dir/localauth-cycles; \
	$(HARNESS) --confdir $$dir --service localauth-cycles --user root --cycles $(CYCLES)

# ---- Reliability (issue 4): fuzzing, sanitizers, valgrind ---------------------------------------
# Figures are printed as lines starting with "RELIABILITY:" (the Swift tests print theirs the same way).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := options state
FUZZ_BIN     := .build-fuzz/release/localauth-fuzz
FUZZ_SEEDS   := Tests/ReliabilityTests/Fixtures/fuzz-seeds
REL_FIXTURES := Tests/ReliabilityTests/Fixtures
VALGRIND_CYCLES ?= 1000

.PHONY: fuzz-build fuzz asan valgrind

# libFuzzer build of localauth-fuzz: -D LOCALAUTH_LIBFUZZER swaps the helper's @main for LLVMFuzzerTestOneInput.
fuzz-build:
	$(SWIFT) build -c release --product localauth-fuzz --scratch-path .build-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLOCALAUTH_LIBFUZZER

# Runs each target for $(1) seconds on a corpus kept in fuzz-corpus/; a crash, leak or timeout fails, and the
# crashing input is left in build/fuzz-<target>-crash-*.
define run_fuzz
	@mkdir -p $(BUILD) $(addprefix fuzz-corpus/,$(FUZZ_TARGETS))
	@for target in $(FUZZ_TARGETS); do \
	  log=$(BUILD)/fuzz-$$target.log; \
	  if ! LOCALAUTH_FUZZ_TARGET=$$target $(FUZZ_BIN) -max_total_time=$(1) -timeout=10 -rss_limit_mb=2048 \
	      -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz-$$target- fuzz-corpus/$$target $(FUZZ_SEEDS)/$$target \
	      > $$log 2>&1; then \
	    tail -40 $$log; echo "fuzz: target $$target FAILED (log: $$log)"; exit 1; \
	  fi; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
	  echo "RELIABILITY: libFuzzer $$target: $$runs inputs in $(1) s, 0 crashes, corpus of $$(ls fuzz-corpus/$$target | wc -l) inputs"; \
	done
endef

fuzz: fuzz-build
	$(call run_fuzz,$(FUZZ_SECONDS))

fuzz-short: fuzz-build
	$(call run_fuzz,10)

# Core, PAM-glue and reliability tests built with AddressSanitizer; then the module itself built with ASan
# and driven through $(VALGRIND_CYCLES) real pam_start/pam_authenticate/pam_end cycles with the ASan runtime preloaded.
ASAN_RUNTIME = $(shell ls $$(dirname $$(readlink -f $$(which swift)))/../lib/clang/*/lib/linux/libclang_rt.asan-x86_64.so 2>/dev/null | head -1)
asan: deps module tools
	$(TEST_ENV) $(SWIFT) test --sanitize=address --scratch-path .build-asan \
	  --filter 'LocalAuthCoreTests|PAMLocalAuthTests|ReliabilityTests|IntegrationTests' 2>&1 | tee $(BUILD)/asan-tests.log | tail -5
	@! grep -q "ERROR: AddressSanitizer" $(BUILD)/asan-tests.log
	@grep -Eq "Test run with [0-9]+ tests? .*passed" $(BUILD)/asan-tests.log
	@echo "RELIABILITY: AddressSanitizer: $$(grep -Eo 'Test run with [0-9]+ tests? in [0-9]+ suites? passed' $(BUILD)/asan-tests.log | sed 's/Test run with //') (LocalAuthCoreTests, PAMLocalAuthTests, ReliabilityTests, IntegrationTests), 0 AddressSanitizer reports"
	$(SWIFT) build -c release --product pam_localauth --scratch-path .build-module-asan -Xswiftc -sanitize=address \
	  -Xswiftc -static-stdlib -Xlinker --version-script=$(CURDIR)/exports.map -Xlinker -z -Xlinker nodelete
	@mkdir -p $(BUILD)/asan && cp .build-module-asan/release/libpam_localauth.so $(BUILD)/asan/pam_localauth.so
	@$(MAKE) --no-print-directory pam-cycles-run PAM_CYCLES_MODULE=$(CURDIR)/$(BUILD)/asan/pam_localauth.so \
	  PAM_CYCLES_WRAP="env LD_PRELOAD=$(ASAN_RUNTIME) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1" PAM_CYCLES_LABEL=AddressSanitizer

# valgrind --leak-check=full over $(VALGRIND_CYCLES) cycles of the installed-shape module, in three scenarios
# (feature mode: options, state, decision; unknown user: conversation and yescrypt; a wrong passcode for a user
# who has one: conversation, lock, state, yescrypt), and over 10 cycles to show that what remains does not grow.
valgrind: deps module tools
	@command -v valgrind >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null)
	@$(MAKE) --no-print-directory pam-cycles-run PAM_CYCLES_MODULE=$(CURDIR)/$(MODULE) PAM_CYCLES_LABEL=valgrind \
	  PAM_CYCLES_WRAP="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=3 --suppressions=$(CURDIR)/$(REL_FIXTURES)/valgrind.supp"

# Internal: runs build/pam-cycles for both scenarios under $(PAM_CYCLES_WRAP) and prints the figures.
.PHONY: pam-cycles-run
pam-cycles-run:
	@mkdir -p $(BUILD)
	cc -O1 -Wall -o $(BUILD)/pam-cycles $(REL_FIXTURES)/pam-cycles.c -lpam
	@dir=$$(mktemp -d /tmp/localauth-cycles-XXXXXX); trap 'rm -rf $$dir' EXIT; \
	mkdir -m 700 $$dir/state $$dir/pam; \
	printf 'auth [success=done ignore=ignore default=die] %s state_dir=%s feature=vpn sensor=none\nauth required pam_permit.so\n' \
	  $(PAM_CYCLES_MODULE) $$dir/state > $$dir/pam/feature; \
	printf 'auth required %s state_dir=%s hash_cost=1 sensor=none nodelay\n' $(PAM_CYCLES_MODULE) $$dir/state > $$dir/pam/unknown; \
	cp $$dir/pam/unknown $$dir/pam/passcode; printf 'hash_cost=1\n' > $$dir/cost.conf; \
	echo 123456 | $(CTL) passcode set root --conf $$dir/cost.conf --state-dir $$dir/state >/dev/null || exit 1; \
	for run in "feature root" "unknown localauth-no-such-user" "passcode root"; do \
	  set -- $$run; previous=""; \
	  for cycles in 10 $(VALGRIND_CYCLES); do \
	    log=$(BUILD)/$(PAM_CYCLES_LABEL)-$$1-$$cycles.log; \
	    if ! $(PAM_CYCLES_WRAP) $(BUILD)/pam-cycles $$dir/pam $$1 $$2 $$cycles wrong-passcode > $$log 2>&1; then \
	      tail -60 $$log; echo "$(PAM_CYCLES_LABEL): $$1 scenario, $$cycles cycles FAILED (log: $$log)"; exit 1; \
	    fi; \
	    result=$$(sed -n 's/^cycles: //p' $$log | tr '\n' ' '); \
	    leaks=$$(grep -E '^==[0-9]+== +(definitely|indirectly|possibly) lost:' $$log | sed 's/^==[0-9]*== *//' | tr -s ' ' | paste -sd ',' -); \
	    possibly=$$(sed -n 's/^==[0-9]*== *possibly lost: \([0-9,]*\) bytes.*/\1/p' $$log); \
	    if [ -n "$$previous" ] && [ "$$possibly" != "$$previous" ]; then \
	      echo "$(PAM_CYCLES_LABEL): $$1 scenario: possibly lost grew from $$previous to $$possibly bytes (log: $$log)"; exit 1; \
	    fi; previous=$$possibly; \
	    echo "RELIABILITY: $(PAM_CYCLES_LABEL): $$1 scenario, $$cycles pam_start/pam_authenticate/pam_end cycles ($$result): $${leaks:-no leak report}, 0 errors"; \
	  done; \
	done

# ---- Demo (issue 3) ------------------------------------------------------------------------------
# LoginSuTests and SudoTests drive the real login(1), su(1) and sudo(8) on a pseudo-terminal with python3
# (python3 and sudo are not in a minimal Debian).
DEBIAN_PACKAGES += python3 login sudo

# As root: a demo user with a finger and a passcode in a private /tmp folder, then pamtester under pam_wrapper
# through the main scenarios (scripts/demo.sh); nothing under /etc changes. Fails if any step misbehaves.
demo: module tools
	LOCALAUTH_MODULE=$(CURDIR)/$(MODULE) LOCALAUTH_CTL=$(CURDIR)/$(CTL) bash scripts/demo.sh

# ---- Benchmarks (issue 5) ------------------------------------------------------------------------
# `make bench`: pam_localauth (release, as installed) against pam_permit.so and pam_unix.so, the matcher's
# error rates, and how cost grows. Prints a table, writes build/bench.json and, on a full run,
# docs/PERFORMANCE.md and the README's <!-- PERFORMANCE:BEGIN/END --> section (if the README has one).
# A figure that misses its target is reported, never a failed build.
# `make bench BENCH_QUICK=1`: a smoke run of about a minute; the documents are left alone.
BENCH       := $(BUILD)/localauth-bench
BENCH_QUICK ?=
BENCH_SOURCE = $(shell git log -1 --format='commit %h (%cs)' 2>/dev/null)$(shell git status --porcelain -- Sources Package.swift 2>/dev/null | grep -q . && echo ' with uncommitted changes')

bench: deps module tools
	@[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; } || true
	$(SWIFT) build -c release --product localauth-bench
	$(SWIFT) build -c release --product bench_floor --scratch-path .build-module --disable-local-rpath $(MODULE_FLAGS)
	@mkdir -p $(BUILD)
	cp .build/release/localauth-bench $(BENCH)
	cp .build-module/release/libbench_floor.so $(BUILD)/bench_floor.so
	strip --strip-unneeded $(BUILD)/bench_floor.so
	BENCH_QUICK=$(BENCH_QUICK) $(BENCH) --build $(BUILD) --json $(BUILD)/bench.json $(if $(BENCH_QUICK),,--doc docs/PERFORMANCE.md --readme README.md) \
	  --source "$(BENCH_SOURCE)"

# ---- Install (issue 3) ----------------------------------------------------------------------------
# The module goes to the system's PAM folder and the profile to /usr/share/pam-configs whatever PREFIX says:
# libpam and pam-auth-update look only there. The configuration is installed only if absent.
PAMCONFIGSDIR ?= /usr/share/pam-configs
STATEDIR      ?= /var/lib/localauth

install: module tools
	install -d $(DESTDIR)$(PAMDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)/etc/security $(DESTDIR)$(PAMCONFIGSDIR)
	install -d -m 0700 $(DESTDIR)$(STATEDIR)
	install -m 0644 $(MODULE) $(DESTDIR)$(PAMDIR)/pam_localauth.so
	install -m 0755 $(CTL) $(DESTDIR)$(SBINDIR)/localauthctl
	[ -e $(DESTDIR)/etc/security/localauth.conf ] || install -m 0644 etc/localauth.conf $(DESTDIR)/etc/security/localauth.conf
	install -m 0644 pam.d/pam-configs/localauth $(DESTDIR)$(PAMCONFIGSDIR)/localauth
	@[ -n "$(DESTDIR)" ] || echo "Installed. Enable it with: pam-auth-update --enable localauth (see docs/INSTALL.md)"

# The installed tree (DESTDIR), and pam-auth-update --enable/--disable localauth on a staged root with the
# generated common-auth driven by pamtester (scripts/e2e-install.sh); /etc is never written. Needs root.
check-install: module tools
	LOCALAUTH_MODULE=$(CURDIR)/$(MODULE) LOCALAUTH_CTL=$(CURDIR)/$(CTL) PAMDIR=$(PAMDIR) bash scripts/e2e-install.sh

# Takes the profile out of /etc/pam.d/common-* first (only on the live system), then removes the files;
# the configuration and the state folder stay.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -e $(PAMCONFIGSDIR)/localauth ] && command -v pam-auth-update >/dev/null; then \
	  echo "pam-auth-update --package --remove localauth"; pam-auth-update --package --remove localauth; fi
	rm -f $(DESTDIR)$(PAMDIR)/pam_localauth.so $(DESTDIR)$(SBINDIR)/localauthctl $(DESTDIR)$(PAMCONFIGSDIR)/localauth

clean:
	rm -rf $(BUILD) .build .build-module
