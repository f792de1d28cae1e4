# pam_localauth — build, install, test, demo, bench.
# `make demo` and `make test` work on a fresh Debian 12 machine as root: they install what is missing (`make deps`).
# `make`, `make module`, `make tools` and `make install` never install anything (packagers build as non-root,
# offline): a missing build package stops them with a one-line hint instead.

PREFIX      ?= /usr
DESTDIR     ?=
PAMDIR      ?= $(shell pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security
SBINDIR     ?= $(PREFIX)/sbin
SWIFT       ?= swift
BUILD       := build
MODULE      := $(BUILD)/pam_localauth.so
CTL         := $(BUILD)/localauthctl
HARNESS     := $(BUILD)/PAMHarness
HELPER      := $(BUILD)/localauth-helper
# The module is built in Embedded Swift: no Swift runtime in sshd, sudo or login (no SWIFT_* variable read, no
# signal handler, no runtime initialiser), libc, libm and libpam only. SwiftPM cannot build one target in Embedded
# mode and the rest in ordinary Swift, so the same files (one source of truth) are compiled here with swiftc:
# LocalAuthCore as a module, then PAMLocalAuth over it, then linked with clang. -Osize, one section per function
# and --gc-sections/--icf keep only what the six entry points reach. libswiftUnicodeDataTables.a holds the tables
# String comparison and hashing need. localauthctl, LocalAuthentication, the tests and the benchmarks build the
# same sources in ordinary Swift through SwiftPM.
SWIFTC         ?= swiftc
CLANG          ?= clang
EMBEDDED_DIR   := .build-embedded
EMBEDDED_LIBS  := $(shell dirname $$(readlink -f $$(command -v $(SWIFTC)) 2>/dev/null) 2>/dev/null)/../lib/swift/embedded/x86_64-unknown-linux-gnu
EMBEDDED_FLAGS := -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded -wmo -parse-as-library \
                  -swift-version 6 -package-name pam_localauth -Osize -Xfrontend -function-sections \
                  -I Sources/CSyscalls -I Sources/CPeerCredentials -I Sources/CCrypt -I Sources/CDBus -I Sources/CLibCrypto -I Sources/CTPM -I Sources/CPAM \
                  -I $(EMBEDDED_DIR)
EMBEDDED_LINK  := -shared -fuse-ld=lld -Wl,--version-script="$(CURDIR)/exports.map" -Wl,-z,nodelete -Wl,--gc-sections \
                  -Wl,--icf=all -Wl,-O1 -Wl,-z,pack-relative-relocs -Wl,--no-undefined
CORE_SOURCES   := $(shell find Sources/LocalAuthCore -name '*.swift' | sort)
MODULE_SOURCES := $(sort $(wildcard Sources/PAMLocalAuth/*.swift))
HELPER_SOURCES := $(sort $(wildcard Sources/localauth-helper/*.swift))
# The helper is a setuid program: position-independent, relocations read-only and resolved at start.
HELPER_LINK    := -fuse-ld=lld -pie -Wl,--gc-sections -Wl,--icf=all -Wl,-O1 -Wl,-z,relro -Wl,-z,now \
                  -Wl,-z,pack-relative-relocs -Wl,--no-undefined
C_HEADERS      := $(wildcard Sources/CSyscalls/* Sources/CPeerCredentials/* Sources/CCrypt/* Sources/CDBus/* Sources/CLibCrypto/* Sources/CTPM/* Sources/CPAM/*)
# Debian packages: what the build needs (the PAM, libxcrypt, OpenSSL and tpm2-tss headers, pkg-config for CPAM,
# strip/nm/readelf; libcrypto and tpm2-tss are still opened on first use, their headers only type the calls),
# and what the tests and the demo run (debhelper and lintian for make deb and check-deb; pamtester under pam_wrapper; OpenSSH for the remote-session tests; python3,
# login and sudo for the pseudo-terminal tests of login(1), su(1) and sudo(8), which a minimal Debian lacks).
# valgrind and time are installed by `make valgrind` and `make bench` when they run. The keychain tests need swtpm and
# tpm2-tss's libraries, the P-256 tests the openssl command; the keyring tests need gnome-keyring, secret-tool
# (libsecret-tools) and libpam-gnome-keyring (whose package, as on any Debian desktop, enables Debian's optional
# pam_gnome_keyring password line in common-password through pam-auth-update).
BUILD_PACKAGES := libpam0g-dev libcrypt-dev libssl-dev libtss2-dev pkg-config binutils
TEST_PACKAGES  := pamtester libpam-wrapper openssh-server openssh-client python3 login sudo vlock tmux \
                  fprintd libfprint-2-2 python3-dbusmock libpam-fprintd dbus libglib2.0-bin \
                  swtpm libtss2-esys-3.0.2-0 libtss2-mu0 libtss2-tctildr0 libtss2-tcti-swtpm0 libtss2-tcti-device0 \
                  gnome-keyring libpam-gnome-keyring libsecret-tools debhelper lintian openssl

.PHONY: all deps build-prereqs module helper tools check-load app-client test figures reliability-heavy test-extra fuzz-short demo bench touch-latency install uninstall check-install deb check-deb check-fresh-clone clean

all: module helper tools

# Installs the build and test packages, if any is missing (as root, online).
deps:
	@missing=""; for p in $(BUILD_PACKAGES) $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# Checks, without installing anything, that the build packages are there.
build-prereqs:
	@test -e /usr/include/security/pam_appl.h || { echo "libpam0g-dev is missing: run make deps (as root), or install it"; exit 1; }
	@test -e /usr/include/crypt.h || { echo "libcrypt-dev is missing: run make deps (as root), or install it"; exit 1; }
	@test -e /usr/include/openssl/evp.h || { echo "libssl-dev is missing: run make deps (as root), or install it"; exit 1; }
	@test -e /usr/include/tss2/tss2_esys.h || { echo "libtss2-dev is missing: run make deps (as root), or install it"; exit 1; }
	@command -v pkg-config >/dev/null || { echo "pkg-config is missing: run make deps (as root), or install it"; exit 1; }
	@command -v strip >/dev/null || { echo "binutils is missing: run make deps (as root), or install it"; exit 1; }

# Goals that install their packages do so before the check above, also under make -j.
ifneq ($(filter deps test demo check-pam reliability-heavy asan valgrind bench touch-latency,$(MAKECMDGOALS)),)
build-prereqs: | deps
endif

# The installable module: Embedded Swift, only pam_sm_* exported, -z nodelete, no run path.
module: build-prereqs $(MODULE)

$(EMBEDDED_DIR)/LocalAuthCore.o: $(CORE_SOURCES) $(C_HEADERS)
	@mkdir -p $(EMBEDDED_DIR)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name LocalAuthCore -emit-module -emit-module-path $(EMBEDDED_DIR)/LocalAuthCore.swiftmodule \
	  -c $(CORE_SOURCES) -o $@

$(EMBEDDED_DIR)/PAMLocalAuth.o: $(MODULE_SOURCES) $(EMBEDDED_DIR)/LocalAuthCore.o $(C_HEADERS)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name PAMLocalAuth -c $(MODULE_SOURCES) -o $@

$(MODULE): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/PAMLocalAuth.o exports.map
	@mkdir -p $(BUILD)
	$(CLANG) $(EMBEDDED_LINK) -o $(EMBEDDED_DIR)/pam_localauth.so $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/PAMLocalAuth.o \
	  $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam -lm
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/pam_localauth.so

# localauth-helper in Embedded Swift, like the module: no Swift runtime in a setuid program.
helper: build-prereqs $(HELPER)

$(EMBEDDED_DIR)/LocalAuthHelper.o: $(HELPER_SOURCES) $(EMBEDDED_DIR)/LocalAuthCore.o $(C_HEADERS)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name LocalAuthHelper -c $(HELPER_SOURCES) -o $@

$(HELPER): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/LocalAuthHelper.o
	@mkdir -p $(BUILD)
	$(CLANG) $(HELPER_LINK) -o $(EMBEDDED_DIR)/localauth-helper $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/LocalAuthHelper.o \
	  $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lm
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/localauth-helper

# make bench's floor: the least a PAM module in Embedded Swift does, built like the module (never installed).
$(BUILD)/bench_floor.so: Sources/BenchFloorModule/FloorModule.swift $(C_HEADERS) exports.map
	@mkdir -p $(EMBEDDED_DIR) $(BUILD)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name BenchFloorModule -c $< -o $(EMBEDDED_DIR)/BenchFloorModule.o
	$(CLANG) $(EMBEDDED_LINK) -o $(EMBEDDED_DIR)/bench_floor.so $(EMBEDDED_DIR)/BenchFloorModule.o \
	  $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/bench_floor.so

tools: build-prereqs
	$(SWIFT) build -c release --product localauthctl
	$(SWIFT) build -c release --product PAMHarness
	@mkdir -p $(BUILD)
	cp .build/release/localauthctl $(CTL)
	cp .build/release/PAMHarness $(HARNESS)

# dlopen(RTLD_NOW) of the installed-shape module, its exports, and no Swift runtime: nothing from the runtime
# in its symbols, no SWIFT_* variable read and no signal handler installed when loaded (scripts/check-load.c).
check-load: module helper
	@bad=$$(nm -D --defined-only $(MODULE) | awk '$$2 ~ /^[A-Z]$$/ && $$3 !~ /^pam_sm_/'); \
	if [ -n "$$bad" ]; then echo "Unexpected exported symbols:"; echo "$$bad"; exit 1; fi
	@readelf -d $(MODULE) | grep -q 'Flags:.*NODELETE' || { echo "$(MODULE) lacks the NODELETE flag"; exit 1; }
	@if readelf -d $(MODULE) | grep -Eq 'NEEDED.*(libstdc\+\+|libgcc_s|libswift|libdispatch|libFoundation)'; then echo "$(MODULE) needs a C++ or Swift runtime library"; exit 1; fi
	@if readelf -d $(MODULE) | grep -Eq 'RUNPATH|RPATH'; then echo "$(MODULE) has a run path; libraries (and libcrypt's dlopen) must come from the system's"; exit 1; fi
	@if readelf -d $(MODULE) | grep -q 'NEEDED.*libcrypt'; then echo "$(MODULE) links libcrypt or libcrypto; it should open them on first use (Sources/CCrypt, Sources/CLibCrypto)"; exit 1; fi
	@if readelf -d $(MODULE) | grep -Eq 'NEEDED.*(libtss2|libsystemd)'; then echo "$(MODULE) links tpm2-tss or libsystemd; it should open them on first use (Sources/CTPM, Sources/CDBus)"; exit 1; fi
	@if nm -D --undefined-only $(MODULE) | grep -Eq 'swift_|_swift|sigaction|signal'; then echo "$(MODULE) refers to the Swift runtime or installs signal handlers:"; nm -D --undefined-only $(MODULE) | grep -E 'swift|sigaction'; exit 1; fi
	@$(CLANG) -O1 -Wall -o $(BUILD)/check-load scripts/check-load.c -ldl
	@$(BUILD)/check-load "$(CURDIR)/$(MODULE)"
	@echo "Exports: $$(nm -D --defined-only $(MODULE) | awk '$$2 ~ /^[A-Z]$$/ {print $$3}' | tr '\n' ' ')"
	@# The setuid helper: libc and libm only, no Swift runtime (it would read SWIFT_* variables), bound at start.
	@needed=$$(readelf -d $(HELPER) | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | tr '\n' ' '); \
	if [ "$$needed" != "libc.so.6 libm.so.6 " ]; then echo "$(HELPER) needs more than libc and libm: $$needed"; exit 1; fi
	@if nm -D --undefined-only $(HELPER) | grep -Eq 'swift_|_swift'; then echo "$(HELPER) refers to the Swift runtime"; exit 1; fi
	@readelf -d $(HELPER) | grep -q 'FLAGS.*NOW' || { echo "$(HELPER) is not linked with -z now"; exit 1; }
	@if readelf -d $(HELPER) | grep -Eq 'RUNPATH|RPATH'; then echo "$(HELPER) has a run path"; exit 1; fi
	@echo "Helper: $$(stat -c %s $(HELPER)) bytes, libc and libm only, no Swift runtime, bound at start"

# Everything `make test` runs: unit, integration (real PAM), reliability (crash, concurrency, fuzz).
# STAGED runs a command with the built files staged in a folder under /tmp that every user can read
# (scripts/stage-artifacts.sh) and named in the environment, then removes the folder. The tests run some of them
# as unprivileged users; staged, they work from a clone in root's 0700 home folder or under a path with spaces.
# `make test` also makes build/ root's alone (0700) first, as if the clone were in such a folder: a test that has
# an unprivileged process load anything from the clone itself then fails, wherever the clone is.
# Every target that runs $(STAGED) depends on everything the script stages (module, helper, tools); la-app is
# staged only when built. `make check-fresh-clone` runs `make deb` and `make demo` in a fresh clone (.ci/run).
STAGED = stage=$$(scripts/stage-artifacts.sh "$(BUILD)") || exit 1; trap 'rm -rf "$$stage"' EXIT; \
         LOCALAUTH_MODULE="$$stage/pam_localauth.so" LOCALAUTH_CTL="$$stage/localauthctl" \
         LOCALAUTH_HARNESS="$$stage/PAMHarness" LOCALAUTH_HELPER="$$stage/localauth-helper" \
         LOCALAUTH_APP="$$stage/la-app"

# The figures the tests print as "RELIABILITY:" lines go to build/reliability.md, only when everything passed;
# the tests never write the documents (`make figures` copies them into docs/RELIABILITY.md).
# The everyday inner loop is plain `swift test` (with the LOCALAUTH_* variables for the real-PAM tests); this is the full run.
test: SHELL := /bin/bash -o pipefail
test: deps module helper tools app-client check-load
	@mkdir -p $(BUILD) && chmod 0700 $(BUILD) && rm -f $(BUILD)/reliability.md
	$(STAGED) scripts/login-session.sh $(SWIFT) test 2>&1 | tee $(BUILD)/swift-test.log
	$(MAKE) --no-print-directory test-extra 2>&1 | tee $(BUILD)/test-extra.log
	@grep -h '^RELIABILITY:' $(BUILD)/swift-test.log $(BUILD)/test-extra.log | sort \
	  | scripts/doc-section.sh --render "make test" > $(BUILD)/reliability.md.new && mv $(BUILD)/reliability.md.new $(BUILD)/reliability.md
	@echo "make test: all passed; figures written to $(BUILD)/reliability.md (make figures puts them in docs/RELIABILITY.md)."

# la-app (Tests/Fixtures/AppClient): an app that depends on LocalAuthentication and Security by path, as a Swift
# developer's does. Linked statically, so that the tests can run a staged copy as ordinary users
# (Tests/IntegrationTests/AppClientTests.swift). Built from scratch each time (about 30 s): SwiftPM does not see
# files added to a path dependency in a scratch folder it built before.
app-client:
	rm -rf $(BUILD)/app-client
	$(SWIFT) build --package-path Tests/Fixtures/AppClient --scratch-path $(BUILD)/app-client -c release --static-swift-stdlib
	@mkdir -p $(BUILD)
	cp $(BUILD)/app-client/release/la-app $(BUILD)/la-app

# The heavier reliability runs (AddressSanitizer, valgrind); their figures go to build/reliability-heavy.md.
reliability-heavy: SHELL := /bin/bash -o pipefail
reliability-heavy: deps
	@mkdir -p $(BUILD) && rm -f $(BUILD)/reliability-heavy.md
	$(MAKE) --no-print-directory asan valgrind 2>&1 | tee $(BUILD)/reliability-heavy.log
	@grep -h '^RELIABILITY:' $(BUILD)/reliability-heavy.log | scripts/doc-section.sh --render "make reliability-heavy" \
	  > $(BUILD)/reliability-heavy.md.new && mv $(BUILD)/reliability-heavy.md.new $(BUILD)/reliability-heavy.md
	@echo "make reliability-heavy: all passed; figures written to $(BUILD)/reliability-heavy.md (make figures puts them in docs/RELIABILITY.md)."

# Copies the figures of the last passing `make test` (and `make reliability-heavy`, if it ran) from build/ into the
# generated sections of docs/RELIABILITY.md. Runs no test. (`make bench` writes docs/PERFORMANCE.md itself.)
figures:
	@[ -s $(BUILD)/reliability.md ] || { echo "figures: no $(BUILD)/reliability.md from a passing make test; run make test first (make figures never runs the tests)"; exit 1; }
	scripts/doc-section.sh docs/RELIABILITY.md RELIABILITY < $(BUILD)/reliability.md
	@if [ -s $(BUILD)/reliability-heavy.md ]; then scripts/doc-section.sh docs/RELIABILITY.md RELIABILITY-HEAVY < $(BUILD)/reliability-heavy.md; \
	else echo "figures: no $(BUILD)/reliability-heavy.md (make reliability-heavy); its section is left as it was"; fi
	@echo "figures: docs/RELIABILITY.md updated from $(BUILD)/."

# Checks that are not Swift tests (defined in the sections below); each must fail loudly. check-deb runs last and
# alone, also under -j: dpkg and pam-auth-update write the live /etc/pam.d and /var/lib/pam, which check-install reads.
test-extra: fuzz-short check-install
	$(MAKE) --no-print-directory check-deb

# ---- Real PAM: harness-driven checks beyond `swift test` -------------------------------------------
.PHONY: check-pam check-cycles

# The real-PAM tests alone (they also run in `make test`): every return-code row through PAMHarness under
# pam_start_confdir and pamtester under pam_wrapper, chauthtok, sessions, not-root, dlopen and exports, cycles.
check-pam: deps module helper tools app-client
	$(STAGED) scripts/login-session.sh $(SWIFT) test --filter IntegrationTests

# 100,000 pam_start/pam_authenticate/pam_end cycles in one process (feature= mode, user root, private state):
# prints resident memory after warm-up, midway and at the end, and the time per cycle.
CYCLES ?= 100000
check-cycles: module tools
	@dir=$$(mktemp -d /tmp/localauth-cycles.XXXXXX); trap 'rm -rf '"$$dir" EXIT; \
	mkdir -m 0700 $$dir/state; : > $$dir/empty.conf; \
	printf 'auth [success=done ignore=ignore default=die] %s state_dir=%s conf=%s feature=cycles\nauth required pam_permit.so\n' \
	  "$(CURDIR)/$(MODULE)" $$dir/state $$dir/empty.conf > $$dir/localauth-cycles; \
	$(HARNESS) --confdir $$dir --service localauth-cycles --user root --cycles $(CYCLES)

# ---- Reliability: fuzzing, sanitizers, valgrind ----------------------------------------------------
# Figures are printed as lines starting with "RELIABILITY:" (the Swift tests print theirs the same way).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := options state helper app
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
	$(STAGED) scripts/login-session.sh $(SWIFT) test --sanitize=address --scratch-path .build-asan \
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

# ---- Demo ------------------------------------------------------------------------------------------
# As root: a demo user with a finger and a passcode in a private /tmp folder, then pamtester under pam_wrapper
# through the main scenarios (scripts/demo.sh); nothing under /etc changes. Fails if any step misbehaves.
# It runs in a terminal session of its own: in a container whose session leader is outside its pid namespace the
# module cannot name the session, and rightly opens no reuse window (the demo shows one).
demo: deps module helper tools
	$(STAGED) setsid --wait bash scripts/demo.sh

# ---- Benchmarks ------------------------------------------------------------------------------------
# `make bench`: pam_localauth (release, as installed) against pam_permit.so and pam_unix.so, the matcher's
# error rates, and how cost grows. Prints a table, writes build/bench.json and, on a full run, docs/PERFORMANCE.md.
# A figure that misses its target is reported, never a failed build.
# `make bench BENCH_QUICK=1`: a smoke run of about a minute; the documents are left alone.
BENCH       := $(BUILD)/localauth-bench
BENCH_QUICK ?=
BENCH_SOURCE = $(shell git log -1 --format='commit %h (%cs)' 2>/dev/null)$(shell git status --porcelain -- Sources Package.swift 2>/dev/null | grep -q . && echo ' with uncommitted changes')

bench: deps module helper tools app-client $(BUILD)/bench_floor.so
	@[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; } || true
	$(SWIFT) build -c release --product localauth-bench
	@mkdir -p $(BUILD)
	cp .build/release/localauth-bench $(BENCH)
	BENCH_QUICK=$(BENCH_QUICK) setsid --wait $(BENCH) --build $(BUILD) --json $(BUILD)/bench.json $(if $(BENCH_QUICK),,--doc docs/PERFORMANCE.md) \
	  --source "$(BENCH_SOURCE)"

# Touch to success against another build, the touch made once its prompt shows (scripts/touch-latency.py):
# make touch-latency REFERENCE=/path/to/other/checkout/build [ROUNDS=30]. Writes build/touch-latency.md.
ROUNDS ?= 30
touch-latency: deps module tools
	@[ -n "$(REFERENCE)" ] || { echo "touch-latency: name the other build's folder with REFERENCE=DIR (make module tools there)"; exit 1; }
	python3 scripts/touch-latency.py --build $(BUILD) --reference $(REFERENCE) --rounds $(ROUNDS) \
	  --label "$$(git rev-parse --short HEAD)" --reference-label "$$(git -C $(REFERENCE)/.. rev-parse --short HEAD 2>/dev/null || echo reference)"

# ---- Install ---------------------------------------------------------------------------------------
# The module goes to the system's PAM folder and the profile to /usr/share/pam-configs whatever PREFIX says:
# libpam and pam-auth-update look only there. The configuration is installed only if absent.
PAMCONFIGSDIR ?= /usr/share/pam-configs
STATEDIR      ?= /var/lib/localauth

install: module helper tools
	install -d $(DESTDIR)$(PAMDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)/etc/security $(DESTDIR)$(PAMCONFIGSDIR)
	install -d -m 0700 $(DESTDIR)$(STATEDIR)
	install -m 0644 $(MODULE) $(DESTDIR)$(PAMDIR)/pam_localauth.so
	install -m 0755 $(CTL) $(DESTDIR)$(SBINDIR)/localauthctl
	@# setuid root, as unix_chkpwd is setgid shadow; a packager building as another user (fakeroot) sets the owner.
	install $(if $(filter 0,$(shell id -u)),-o root -g root) -m 4755 $(HELPER) $(DESTDIR)$(SBINDIR)/localauth-helper
	[ -e $(DESTDIR)/etc/security/localauth.conf ] || install -m 0644 etc/localauth.conf $(DESTDIR)/etc/security/localauth.conf
	install -m 0644 pam.d/pam-configs/localauth $(DESTDIR)$(PAMCONFIGSDIR)/localauth
	install -m 0644 pam.d/pam-configs/localauth-keyring $(DESTDIR)$(PAMCONFIGSDIR)/localauth-keyring
	@[ -n "$(DESTDIR)" ] || echo "Installed. Enable it with: pam-auth-update --enable localauth [localauth-keyring] (see docs/INSTALL.md)"

# The installed tree (DESTDIR), and pam-auth-update --enable/--disable localauth on a staged root with the
# generated common-auth driven by pamtester (scripts/e2e-install.sh); /etc is never written. Needs root.
check-install: module helper tools
	$(STAGED) PAMDIR=$(PAMDIR) bash scripts/e2e-install.sh

# Takes the profile out of /etc/pam.d/common-* first (only on the live system), then removes the files;
# the configuration and the state folder stay.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -e $(PAMCONFIGSDIR)/localauth ] && command -v pam-auth-update >/dev/null; then \
	  echo "pam-auth-update --package --remove localauth localauth-keyring"; pam-auth-update --package --remove localauth localauth-keyring; fi
	rm -f $(DESTDIR)$(PAMDIR)/pam_localauth.so $(DESTDIR)$(SBINDIR)/localauthctl $(DESTDIR)$(SBINDIR)/localauth-helper \
	  $(DESTDIR)$(PAMCONFIGSDIR)/localauth $(DESTDIR)$(PAMCONFIGSDIR)/localauth-keyring

# ---- Debian package --------------------------------------------------------------------------------
# `make deb`: libpam-localauth_<version>_amd64.deb (version from debian/changelog) with dpkg-buildpackage -b from a
# copy of the tree in build/deb/src; the .deb is copied to the top folder (scripts/build-deb.sh). Installs nothing.
deb:
	scripts/build-deb.sh

# As root, undoing everything: the package installed, used, reinstalled, removed and purged, twice; every installed
# ELF file resolves its libraries in Debian's folders; /etc/pam.d/common-* as they were (scripts/check-deb.sh).
check-deb: deb
	scripts/check-deb.sh $(CURDIR)/libpam-localauth_$$(dpkg-parsechangelog -S Version)_amd64.deb

# The README's commands as a new user runs them: `make deb` and then `make demo`, each alone, in a fresh clone of
# HEAD in root's home folder under a path with a space (scripts/check-fresh-clone.sh). Run by .ci/run.
check-fresh-clone:
	scripts/check-fresh-clone.sh

clean:
	rm -rf $(BUILD) .build .build-module $(EMBEDDED_DIR)
