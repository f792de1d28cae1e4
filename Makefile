# pam_localauth: one comment per target, longer recipes in named scripts (scripts/, and Tests/scripts/ for what only the
# tests run). `make test` and `make demo` install missing packages (make deps, as root); make, module, tools, install never do.

PREFIX      ?= /usr
DESTDIR     ?=
PAMDIR      ?= $(shell pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security
SBINDIR     ?= $(PREFIX)/sbin
SWIFT       ?= swift
BUILD       := build
MODULE      := $(BUILD)/pam_localauth.so
EXTRA       := $(BUILD)/pam_localauth/extra.so
CTL         := $(BUILD)/localauthctl
HARNESS     := $(BUILD)/PAMHarness
HELPER      := $(BUILD)/localauth-helper
# The module and the helper in Embedded Swift (docs/EMBEDDED.md): the same sources as SwiftPM's, compiled with swiftc
# to LLVM bitcode and linked with clang's whole-program LTO, so that each binary keeps only the code and the tables
# (witnesses, metadata) its entry points reach; -Osize, --gc-sections and --icf do the rest. LLVM's machine outliner
# (repeated instruction sequences become one function) takes 8 % off the library and the helper, but would slow the
# module's in-process cycle (make bench, figure 4a) by a quarter, so the module is linked without it (docs/EMBEDDED.md).
SWIFTC         ?= swiftc
CLANG          ?= clang
EMBEDDED_DIR   := .build-embedded
EMBEDDED_LIBS  := $(shell dirname $$(readlink -f $$(command -v $(SWIFTC)) 2>/dev/null) 2>/dev/null)/../lib/swift/embedded/x86_64-unknown-linux-gnu
EMBEDDED_FLAGS := -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded -wmo -parse-as-library \
                  -swift-version 6 -package-name pam_localauth -Osize -lto=llvm-full -Xfrontend -function-sections \
                  -I Sources/CSyscalls -I Sources/CPeerCredentials -I Sources/CCrypt -I Sources/CDBus -I Sources/CLibCrypto -I Sources/CTPM -I Sources/CPAM \
                  -I $(EMBEDDED_DIR)
LINK_INPUTS    := Sources/PAMLocalAuth/link
OUTLINER       := -Wl,-mllvm,-enable-machine-outliner=always
EMBEDDED_SHARED := -shared -flto=full -Os -fuse-ld=lld -Wl,-z,nodelete -Wl,--gc-sections -Wl,--icf=all -Wl,-O1 -Wl,-z,pack-relative-relocs \
                  -Wl,--no-undefined
EMBEDDED_LINK  := $(EMBEDDED_SHARED) -Wl,--version-script="$(CURDIR)/$(LINK_INPUTS)/exports.map"
CORE_SOURCES   := $(shell find Sources/LocalAuthCore -name '*.swift' | sort)
MODULE_SOURCES := $(sort $(wildcard Sources/PAMLocalAuth/*.swift))
# The installed module leaves out the parts pam_localauth/extra.so runs (Sources/PAMLocalAuth/ExtraLibrary.swift).
COLD_SOURCES   := $(addprefix Sources/PAMLocalAuth/,ExtraEntry.swift LoginSecretLines.swift ChangeAuthToken.swift HelperRelay.swift)
HOT_SOURCES    := $(filter-out $(COLD_SOURCES),$(MODULE_SOURCES))
HELPER_SOURCES := $(sort $(wildcard Sources/localauth-helper/*.swift))
# The setuid helper: position-independent, relocations read-only and resolved at start.
HELPER_LINK    := -flto=full -Os $(OUTLINER) -fuse-ld=lld -pie -Wl,--gc-sections -Wl,--icf=all -Wl,-O1 -Wl,-z,relro -Wl,-z,now \
                  -Wl,-z,pack-relative-relocs -Wl,--no-undefined
C_HEADERS      := $(wildcard Sources/CSyscalls/* Sources/CPeerCredentials/* Sources/CCrypt/* Sources/CDBus/* Sources/CLibCrypto/* Sources/CTPM/* Sources/CPAM/*)

.PHONY: all deps build-prereqs module helper tools app-client check-load test test-extra reliability-heavy figures check-pam check-cycles check-readme-figures \
        fuzz-build fuzz fuzz-short asan valgrind pam-cycles-run demo bench touch-latency install installed-ctl uninstall check-install check-box deb check-deb check-fresh-clone clean

all: module helper tools  # the module, the helper, localauthctl and PAMHarness

# Installs the build and test packages that are missing, as root, online (scripts/deps.sh lists them and why).
deps:
	@scripts/deps.sh
# Checks, without installing anything, that the build packages are there (scripts/build-prereqs.sh).
build-prereqs:
	@scripts/build-prereqs.sh

# Goals that install their packages do so before the check above, also under make -j.
ifneq ($(filter deps test demo check-pam reliability-heavy asan valgrind bench touch-latency,$(MAKECMDGOALS)),)
build-prereqs: | deps
endif

# ---- Build -----------------------------------------------------------------------------------------
# The installable module: Embedded Swift, only pam_sm_* exported, -z nodelete, no run path; beside it
# pam_localauth/extra.so, the same module with its rarely used parts, which it opens on first use (docs/EMBEDDED.md).
module: build-prereqs $(MODULE) $(EXTRA)
$(EMBEDDED_DIR)/LocalAuthCore.o: $(CORE_SOURCES) $(C_HEADERS)
	@mkdir -p $(EMBEDDED_DIR)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name LocalAuthCore -emit-module -emit-module-path $(EMBEDDED_DIR)/LocalAuthCore.swiftmodule \
	  -c $(CORE_SOURCES) -o $@
$(EMBEDDED_DIR)/PAMLocalAuth.o: $(HOT_SOURCES) $(EMBEDDED_DIR)/LocalAuthCore.o $(C_HEADERS)
	$(SWIFTC) $(EMBEDDED_FLAGS) -D LOCALAUTH_HOT_MODULE -module-name PAMLocalAuth -c $(HOT_SOURCES) -o $@
$(EMBEDDED_DIR)/PAMLocalAuthExtra.o: $(MODULE_SOURCES) $(EMBEDDED_DIR)/LocalAuthCore.o $(C_HEADERS)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name PAMLocalAuth -c $(MODULE_SOURCES) -o $@
# rounding.o: ceil, floor and sqrt of their own for the module, its library and the helper, so that none loads libm
# (link/rounding.c).
$(EMBEDDED_DIR)/rounding.o: $(LINK_INPUTS)/rounding.c
	@mkdir -p $(EMBEDDED_DIR)
	$(CLANG) -O2 -fPIC -fvisibility=hidden -fno-builtin -fno-math-errno -Wall -c $< -o $@
# module.order: the functions a simulated-finger authentication runs (scripts/module-hot-path.sh), laid out first so
# that the pages it maps stay few (docs/EMBEDDED.md); a name no longer in the link is skipped.
$(MODULE): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/PAMLocalAuth.o $(EMBEDDED_DIR)/rounding.o $(LINK_INPUTS)/exports.map $(LINK_INPUTS)/module.order
	@mkdir -p $(BUILD)
	$(CLANG) $(EMBEDDED_LINK) -Wl,--symbol-ordering-file="$(CURDIR)/$(LINK_INPUTS)/module.order" -Wl,--no-warn-symbol-ordering -o $(EMBEDDED_DIR)/$(@F) $(filter %.o,$^) $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/$(@F)
$(EXTRA): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/PAMLocalAuthExtra.o $(EMBEDDED_DIR)/rounding.o $(LINK_INPUTS)/extra.map
	@mkdir -p $(@D) $(EMBEDDED_DIR)/pam_localauth
	$(CLANG) $(EMBEDDED_SHARED) $(OUTLINER) -Wl,--version-script="$(CURDIR)/$(LINK_INPUTS)/extra.map" -o $(EMBEDDED_DIR)/pam_localauth/$(@F) $(filter %.o,$^) $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/pam_localauth/$(@F)

# make bench's one-module alternative (issue 40, item 4): every part in one pam_localauth.so, from the objects extra.so
# is built from (no LOCALAUTH_HOT_MODULE), linked exactly like $(MODULE); never installed, built for the bench only.
ONE_MODULE := $(BUILD)/one-module/pam_localauth.so
$(ONE_MODULE): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/PAMLocalAuthExtra.o $(EMBEDDED_DIR)/rounding.o $(LINK_INPUTS)/exports.map $(LINK_INPUTS)/module.order
	@mkdir -p $(@D) $(EMBEDDED_DIR)/one-module
	$(CLANG) $(EMBEDDED_LINK) -Wl,--symbol-ordering-file="$(CURDIR)/$(LINK_INPUTS)/module.order" -Wl,--no-warn-symbol-ordering -o $(EMBEDDED_DIR)/one-module/$(@F) $(filter %.o,$^) $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/one-module/$(@F)

# localauth-helper in Embedded Swift, like the module: no Swift runtime in a setuid program.
helper: build-prereqs $(HELPER)
$(EMBEDDED_DIR)/LocalAuthHelper.o: $(HELPER_SOURCES) $(EMBEDDED_DIR)/LocalAuthCore.o $(C_HEADERS)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name LocalAuthHelper -c $(HELPER_SOURCES) -o $@
$(HELPER): $(EMBEDDED_DIR)/LocalAuthCore.o $(EMBEDDED_DIR)/LocalAuthHelper.o $(EMBEDDED_DIR)/rounding.o
	@mkdir -p $(BUILD)
	$(CLANG) $(HELPER_LINK) -o $(EMBEDDED_DIR)/$(@F) $(filter %.o,$^) $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/$(@F)

# make bench's floor: the least a PAM module in Embedded Swift does, built like the module (never installed).
$(BUILD)/bench_floor.so: Sources/BenchFloorModule/FloorModule.swift $(C_HEADERS) $(LINK_INPUTS)/exports.map
	@mkdir -p $(EMBEDDED_DIR) $(BUILD)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name BenchFloorModule -c $< -o $(EMBEDDED_DIR)/BenchFloorModule.o
	$(CLANG) $(EMBEDDED_LINK) -o $(EMBEDDED_DIR)/$(@F) $(EMBEDDED_DIR)/BenchFloorModule.o $(EMBEDDED_LIBS)/libswiftUnicodeDataTables.a -lpam
	strip --strip-unneeded -o $@ $(EMBEDDED_DIR)/$(@F)

# localauthctl and PAMHarness, in ordinary Swift through SwiftPM.
tools: build-prereqs
	$(SWIFT) build -c release --product localauthctl
	$(SWIFT) build -c release --product PAMHarness
	@mkdir -p $(BUILD) && cp .build/release/localauthctl $(CTL) && cp .build/release/PAMHarness $(HARNESS)

# la-app (Tests/Fixtures/AppClient), an app using LocalAuthentication and Security, static, rebuilt from scratch each
# time (SwiftPM does not see files added to a path dependency in a scratch folder it built before).
app-client:
	rm -rf $(BUILD)/app-client
	$(SWIFT) build --package-path Tests/Fixtures/AppClient --scratch-path $(BUILD)/app-client -c release --static-swift-stdlib
	@mkdir -p $(BUILD) && cp $(BUILD)/app-client/release/la-app $(BUILD)/la-app

# ---- Tests -----------------------------------------------------------------------------------------
# The module's and the helper's shape (exports, libraries, no Swift runtime) and sizes against Tests/budget/sizes.
check-load: module helper
	@CLANG="$(CLANG)" Tests/scripts/check-load.sh $(MODULE) $(HELPER) $(BUILD) $(EXTRA)

# STAGED: a command run with the built files staged under /tmp for every user to read (scripts/stage-artifacts.sh)
# and named in LOCALAUTH_*; a target using it depends on module, helper and tools (la-app is staged when built).
STAGED = stage=$$(scripts/stage-artifacts.sh "$(BUILD)") || exit 1; trap 'rm -rf "$$stage"' EXIT; \
         LOCALAUTH_MODULE="$$stage/pam_localauth.so" LOCALAUTH_CTL="$$stage/localauthctl" LOCALAUTH_HARNESS="$$stage/PAMHarness" \
         LOCALAUTH_HELPER="$$stage/localauth-helper" LOCALAUTH_APP="$$stage/la-app"

# Everything, with build/ root's alone (0700) so that nothing unprivileged loads from the clone; the "RELIABILITY:"
# figures go to build/reliability.md only when everything passed.
test: SHELL := /bin/bash -o pipefail
test: deps module helper tools app-client check-load
	@mkdir -p $(BUILD) && chmod 0700 $(BUILD) && rm -f $(BUILD)/reliability.md
	$(STAGED) Tests/scripts/login-session.sh $(SWIFT) test 2>&1 | tee $(BUILD)/swift-test.log
	$(MAKE) --no-print-directory test-extra 2>&1 | tee $(BUILD)/test-extra.log
	@scripts/figures.sh collect --sort "make test" $(BUILD)/reliability.md $(BUILD)/swift-test.log $(BUILD)/test-extra.log

# Checks that are not Swift tests; check-deb last and alone (it writes the /etc/pam.d that check-install reads).
test-extra: fuzz-short check-install check-readme-figures check-box
	$(MAKE) --no-print-directory check-deb

# The README's headline figures are docs/PERFORMANCE.md's (make bench writes that file; quote it again after a run).
check-readme-figures:
	@Tests/scripts/check-readme-figures.sh .

# The heavier reliability runs (AddressSanitizer, valgrind); their figures go to build/reliability-heavy.md.
reliability-heavy: SHELL := /bin/bash -o pipefail
reliability-heavy: deps
	@mkdir -p $(BUILD) && rm -f $(BUILD)/reliability-heavy.md
	$(MAKE) --no-print-directory asan valgrind 2>&1 | tee $(BUILD)/reliability-heavy.log
	@scripts/figures.sh collect "make reliability-heavy" $(BUILD)/reliability-heavy.md $(BUILD)/reliability-heavy.log

# The figures of the last passing make test (and reliability-heavy) into docs/RELIABILITY.md; runs no test.
figures:
	@scripts/figures.sh publish $(BUILD)

# The real-PAM tests alone (they also run in make test).
check-pam: deps module helper tools app-client
	$(STAGED) Tests/scripts/login-session.sh $(SWIFT) test --filter IntegrationTests
# $(CYCLES) pam_start/pam_authenticate/pam_end cycles in one process: resident memory and time per cycle.
CYCLES ?= 100000
check-cycles: module tools
	@Tests/scripts/check-cycles.sh $(HARNESS) $(MODULE) $(CYCLES)

# ---- Reliability: fuzzing, sanitizers, valgrind (figures as "RELIABILITY:" lines) ------------------
FUZZ_SECONDS    ?= 60
VALGRIND_CYCLES ?= 1000
# libFuzzer build of localauth-fuzz: -D LOCALAUTH_LIBFUZZER swaps the helper's @main for LLVMFuzzerTestOneInput.
fuzz-build:
	$(SWIFT) build -c release --product localauth-fuzz --scratch-path .build-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLOCALAUTH_LIBFUZZER
# Each fuzz target for $(FUZZ_SECONDS) seconds (fuzz-short: 10) on a corpus in fuzz-corpus/ (Tests/scripts/fuzz.sh).
fuzz fuzz-short: fuzz-build
	@Tests/scripts/fuzz.sh $(if $(filter fuzz-short,$@),10,$(FUZZ_SECONDS)) $(BUILD) .build-fuzz/release/localauth-fuzz

# Tests and the module built with AddressSanitizer, then $(VALGRIND_CYCLES) PAM cycles of it (Tests/scripts/asan.sh).
asan: deps module tools
	@$(STAGED) SWIFT="$(SWIFT)" Tests/scripts/asan.sh $(BUILD) $(CTL) $(VALGRIND_CYCLES)
# valgrind --leak-check=full over $(VALGRIND_CYCLES) PAM cycles of the installed-shape module, three scenarios.
valgrind: deps module tools
	@command -v valgrind >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null)
	@$(MAKE) --no-print-directory pam-cycles-run PAM_CYCLES_MODULE=$(CURDIR)/$(MODULE) PAM_CYCLES_LABEL=valgrind \
	  PAM_CYCLES_WRAP="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=3 --suppressions=$(CURDIR)/Tests/ReliabilityTests/Fixtures/valgrind.supp"
# Internal: build/pam-cycles for the three scenarios under $(PAM_CYCLES_WRAP) (Tests/scripts/pam-cycles.sh).
pam-cycles-run:
	@Tests/scripts/pam-cycles.sh $(BUILD) $(CTL) $(PAM_CYCLES_MODULE) $(PAM_CYCLES_LABEL) $(VALGRIND_CYCLES) $(PAM_CYCLES_WRAP)

# ---- Demo, benchmarks ------------------------------------------------------------------------------
# As root, pamtester under pam_wrapper through the main scenarios (scripts/demo.sh), in a terminal session of its own.
demo: deps module helper tools
	$(STAGED) setsid --wait bash scripts/demo.sh
# Against pam_permit and pam_unix: build/bench.json and docs/PERFORMANCE.md (scripts/bench.sh); BENCH_QUICK=1: a smoke run.
# Figures 1e and 3d measure build/one-module/pam_localauth.so beside the installed split module.
BENCH_QUICK ?=
bench: deps module helper tools app-client $(BUILD)/bench_floor.so $(ONE_MODULE)
	@SWIFT="$(SWIFT)" BENCH_QUICK="$(BENCH_QUICK)" scripts/bench.sh $(BUILD)
# Touch to success against another build (scripts/touch-latency.py): make touch-latency REFERENCE=DIR [ROUNDS=30].
ROUNDS ?= 30
touch-latency: deps module tools
	@[ -n "$(REFERENCE)" ] || { echo "touch-latency: name the other build's folder with REFERENCE=DIR (make module tools there)"; exit 1; }
	python3 scripts/touch-latency.py --build $(BUILD) --reference $(REFERENCE) --rounds $(ROUNDS) --label "$$(git rev-parse --short HEAD)" \
	  --reference-label "$$(git -C $(REFERENCE)/.. rev-parse --short HEAD 2>/dev/null || echo reference)"

# ---- Install, package ------------------------------------------------------------------------------
PAMCONFIGSDIR ?= /usr/share/pam-configs
STATEDIR      ?= /var/lib/localauth
INSTALL_DIRS   = DESTDIR="$(DESTDIR)" PAMDIR="$(PAMDIR)" SBINDIR="$(SBINDIR)" PAMCONFIGSDIR="$(PAMCONFIGSDIR)" STATEDIR="$(STATEDIR)"
# The module, the setuid helper, localauthctl, the profiles, the configuration if absent (scripts/install.sh).
install: module helper tools installed-ctl
	@$(INSTALL_DIRS) scripts/install.sh install $(BUILD)
# localauthctl as make install puts it on a machine: stripped, the Swift standard library linked statically, as the package
# links it (debian/rules), so that it runs without the Swift toolchain; in a scratch folder of its own, so that the
# tests' build in .build is left as it is.
installed-ctl: build-prereqs
	$(SWIFT) build -c release --static-swift-stdlib --product localauthctl --scratch-path .build-static
	@mkdir -p $(BUILD)/installed && strip --strip-unneeded -o $(BUILD)/installed/localauthctl .build-static/release/localauthctl
# Takes the profiles out of the live /etc/pam.d, removes the files; the configuration and the state stay.
uninstall:
	@$(INSTALL_DIRS) scripts/install.sh uninstall
# make install DESTDIR= and pam-auth-update on a staged root, driven by pamtester (Tests/scripts/e2e-install.sh).
check-install: module helper tools
	$(STAGED) PAMDIR=$(PAMDIR) bash Tests/scripts/e2e-install.sh
# As root: sudo, the user manager and polkit end to end in a box running systemd, logind and polkitd, with the built
# files installed and PAM wired there; nothing on the host changes (Tests/scripts/box/check-box.sh). Logs: build/box.
check-box: module helper tools app-client installed-ctl
	$(STAGED) PAMDIR=$(PAMDIR) BOX_LOGS="$(CURDIR)/$(BUILD)/box" Tests/scripts/box/check-box.sh
# libpam-localauth_<version>_amd64.deb with dpkg-buildpackage -b from a copy of the tree (scripts/build-deb.sh).
deb:
	scripts/build-deb.sh
# As root: the package installed, used, reinstalled, removed and purged, twice (Tests/scripts/check-deb.sh).
check-deb: deb
	Tests/scripts/check-deb.sh $(CURDIR)/libpam-localauth_$$(dpkg-parsechangelog -S Version)_amd64.deb
# make deb and then make demo, each alone, in a fresh clone of HEAD under a path with a space (run by .ci/run).
check-fresh-clone:
	Tests/scripts/check-fresh-clone.sh
# Removes the build folders.
clean:
	rm -rf $(BUILD) .build .build-module .build-static $(EMBEDDED_DIR)
