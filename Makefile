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
MODULE_FLAGS := -Xswiftc -static-stdlib -Xlinker --version-script=$(CURDIR)/exports.map \
                -Xlinker -z -Xlinker nodelete -Xlinker --gc-sections
DEBIAN_PACKAGES := libpam0g-dev libcrypt-dev pamtester libpam-wrapper pkg-config binutils

.PHONY: all deps module tools check-load test test-extra fuzz-short demo bench install uninstall check-install clean

all: module tools

# Installs the Debian packages the build and the tests need, if any is missing.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The installable module: release, Swift runtime linked statically, only pam_sm_* exported, -z nodelete.
module: deps
	$(SWIFT) build -c release --product pam_localauth --scratch-path .build-module $(MODULE_FLAGS)
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
	@echo "Exports: $$(nm -D --defined-only $(MODULE) | awk '$$2 ~ /^[A-Z]$$/ {print $$3}' | tr '\n' ' ')"

# Everything `make test` runs: unit, integration (real PAM), reliability (crash, concurrency, fuzz).
TEST_ENV := LOCALAUTH_MODULE=$(CURDIR)/$(MODULE) LOCALAUTH_CTL=$(CURDIR)/$(CTL) LOCALAUTH_HARNESS=$(CURDIR)/$(HARNESS)

test: deps module tools check-load
	$(TEST_ENV) $(SWIFT) test
	$(MAKE) --no-print-directory test-extra

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
fuzz-short:
	@echo "fuzz-short: no fuzz targets yet"

# ---- Demo (issue 3) ------------------------------------------------------------------------------
# LoginSuTests drives the real login(1) and su(1) on a pseudo-terminal with python3 (not in a minimal Debian).
DEBIAN_PACKAGES += python3 login

# As root: a demo user with a finger and a passcode in build/demo/state, then pamtester under pam_wrapper
# through the main scenarios (scripts/demo.sh); nothing under /etc changes. Fails if any step misbehaves.
demo: module tools
	LOCALAUTH_MODULE=$(CURDIR)/$(MODULE) LOCALAUTH_CTL=$(CURDIR)/$(CTL) bash scripts/demo.sh

# ---- Benchmarks (issue 5) ------------------------------------------------------------------------
bench: deps module tools
	@echo "bench: not written yet"

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
