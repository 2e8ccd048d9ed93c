# Quick start on a fresh Debian machine with Swift:
#   make run    installs what is missing, then runs the demo tour
#   make test   installs what is missing, then runs the whole test suite

APT_PACKAGES := libsqlcipher-dev libsodium-dev sqlcipher sqlite3 pkg-config python3 python3-venv glewlwyd
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)


.PHONY: deps build run test cli-snapshots manual histories histories-soak crash-states test-servers test-sqlcipher4 sqlcipher4 test-standins standins bench clean check check-readme check-api api docs check-portability check-layers check-warnings check-format format check-default-resolution fuzz fuzz-build fuzz-corpus check-asan check-tsan check-hard

# Installs the C libraries (and the sqlcipher / sqlite3 shells the tests drive, python3 with
# venv for the test authorization servers, and Glewlwyd, an OpenID provider we did not write,
# which Tests/Servers/glewlwyd/serve.py runs on 127.0.0.1) when absent.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	swift build

run: deps
	swift build --product sessionvault
	.build/debug/sessionvault demo

# The real authorization servers the tests start: django-oauth-toolkit and idpyoidc (pinned in
# Tests/Servers/oauth/requirements.txt) in .build-oauth-venv, from PyPI once, then reused; that
# venv also runs the harness around Debian's Glewlwyd (installed by deps).
test-servers: deps
	bash Tests/Servers/oauth/setup.sh

# One test at a time (--no-parallel), and the suites that keep both cores busy for a minute or
# more (the crash-state explorer, the session histories, the simulated day of requests) in a
# second process after the others. Run side by side on a busy 2-core machine, tests starved each
# other of the two threads of Swift's cooperative pool, and event waits with generous limits (a
# loop going to sleep, a request reaching the server) ran out. Most tests wait on processes,
# files and sockets rather than the CPU, so one at a time costs little (about 3 minutes).
HEAVY_SUITES := CrashStateTests|SessionHistoryTests|RequestBudgetTests
# Suites that kill a child through the crash-state interposer (LD_PRELOAD): not under a sanitizer.
PRELOAD_SUITES := SignInKilledAfterRecoveryTests

test: deps test-servers
	swift build --build-tests
	swift test --skip-build --no-parallel --skip '$(HEAVY_SUITES)'
	swift test --skip-build --no-parallel --filter '$(HEAVY_SUITES)'

# The session histories alone (`make test` runs them too, 200 histories of 20-40 steps):
# seeded random histories of an app and two extensions on one vault against a GoTrue-shaped
# server with faults, clock moves and races, checked after every step. A failure prints its seed
# and a shrunk step list; `HISTORY_SEED=n make histories` replays that one seed, step by step.
# HISTORY_COUNT, HISTORY_STEPS (20-40, or one number) and HISTORY_FIRST_SEED size a run.
histories: deps
	swift build --build-tests
	swift test --skip-build --filter SessionHistoryTests

# A longer run for a local machine: 5000 histories of 40-120 steps from seed 1000.
histories-soak: deps
	swift build --build-tests
	HISTORY_COUNT=$${HISTORY_COUNT:-5000} HISTORY_STEPS=$${HISTORY_STEPS:-40-120} HISTORY_FIRST_SEED=$${HISTORY_FIRST_SEED:-1000} \
		swift test --skip-build --filter SessionHistoryTests

# The crash-state explorer alone (`make test` runs it too, as part of the suite):
# every state a power cut can leave in creation, store, rotate, sign-out, biometric, rekey, wipe
# and recovery, opened by the library and the CLI. CRASH_STATES_SEED and CRASH_STATES_CAP
# (states per workload, default 200) reproduce or widen a run.
crash-states: deps
	swift build --build-tests
	swift test --skip-build --filter CrashStateTests

# The SQLCipher 4.x leg: Debian's sqlcipher 4.6.1 source package (trixie) built into
# .build-sqlcipher4/engine (reused once built), the package built against it in its own scratch
# path, the whole suite run there. Linking is made explicit: a private pkg-config directory whose
# libsodium.pc carries no -L/-I of the system directories (SwiftPM put those ahead of SQLCipher's
# and linked Debian's 3.4.1 against the 4.x header), the engine's directory as -L and rpath, and
# ldd must show the engine's library. SESSIONVAULT_EXPECT_SQLCIPHER=4 makes EngineTests fail
# unless `PRAGMA cipher_version` answers 4.x at run time; SESSIONVAULT_SQLCIPHER_SHELL is the
# 4.x shell for the tests that drive one; SESSIONVAULT_OTHER_ENGINE_CLI is the 3.4.1 build's CLI
# (.build, built here if absent), for EnginePortabilityTests: files moved both ways in one run.
SQLCIPHER4 := $(CURDIR)/.build-sqlcipher4
SQLCIPHER4_LIB := $(SQLCIPHER4)/engine/lib
SQLCIPHER4_SWIFT_FLAGS := --scratch-path $(SQLCIPHER4)/swift \
	-Xcc -I$(SQLCIPHER4)/engine/include -Xlinker -L$(SQLCIPHER4_LIB) -Xlinker -rpath -Xlinker $(SQLCIPHER4_LIB)
SQLCIPHER4_ENV := PKG_CONFIG_PATH=$(SQLCIPHER4)/pkgconfig SESSIONVAULT_EXPECT_SQLCIPHER=4 \
	SESSIONVAULT_SQLCIPHER_SHELL=$(SQLCIPHER4)/bin/sqlcipher \
	SESSIONVAULT_OTHER_ENGINE_CLI=$(CURDIR)/.build/debug/sessionvault

sqlcipher4: deps
	./scripts/build-sqlcipher4.sh

test-sqlcipher4: sqlcipher4 test-servers
	swift build --product sessionvault
	$(SQLCIPHER4_ENV) swift build --build-tests $(SQLCIPHER4_SWIFT_FLAGS)
	@bin="$$($(SQLCIPHER4_ENV) swift build $(SQLCIPHER4_SWIFT_FLAGS) --show-bin-path)"; \
	for f in "$$bin/sessionvault" "$$bin/SessionVaultPackageTests.xctest"; do \
		ldd "$$f" | grep -q "$(SQLCIPHER4_LIB)/libsqlcipher" || { echo "$$f is not linked to $(SQLCIPHER4_LIB):"; ldd "$$f" | grep sqlcipher; exit 1; }; \
	done; echo "linked against $(SQLCIPHER4_LIB)"
	$(SQLCIPHER4_ENV) swift test --skip-build $(SQLCIPHER4_SWIFT_FLAGS) --no-parallel --skip '$(HEAVY_SUITES)'
	$(SQLCIPHER4_ENV) swift test --skip-build $(SQLCIPHER4_SWIFT_FLAGS) --no-parallel --filter '$(HEAVY_SUITES)'

# The stand-in leg (the manifest's Apple branch on Linux): the whole suite and the README client built through the
# manifest's Apple branch (SESSIONVAULT_APPLE_PACKAGES=1: SQLCipher's and swift-sodium's packages,
# the CSQLCipher / CSodium shims re-exporting their modules, SQLITE_HAS_CODEC from the
# importers' cSettings), on Linux. scripts/make-standins.sh makes local git repositories named
# and shaped like those packages (product and module SQLCipher, tag 4.15.0; product and module
# Clibsodium, tag 0.10.0) around Debian's libraries, and SwiftPM mirrors for their URLs in
# .build-standins/config, passed with --config-path. The package is built from a copy of the
# work tree (tracked and untracked files, not ignored ones) in .build-standins/package, so its
# Package.resolved and .swiftpm never touch the work tree's; the leg checks the Apple packages
# were resolved there from the stand-ins, and, at the end, that the default build here still
# resolves neither.
STANDINS := $(CURDIR)/.build-standins
STANDINS_PACKAGE := $(STANDINS)/package
STANDINS_FLAGS := --scratch-path $(STANDINS)/swift --config-path $(STANDINS)/config --manifest-cache local
STANDINS_ENV := SESSIONVAULT_APPLE_PACKAGES=1 SESSIONVAULT_EXPECT_SQLCIPHER=3
APPLE_PACKAGES_PATTERN := sqlcipher\.swift|swift-sodium|SQLCipher\.swift

standins: deps
	./scripts/make-standins.sh $(STANDINS)
	rm -rf $(STANDINS_PACKAGE) && mkdir -p $(STANDINS_PACKAGE)
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C $(STANDINS_PACKAGE)
	ln -s $(CURDIR)/.build-oauth-venv $(STANDINS_PACKAGE)/.build-oauth-venv
	cd $(STANDINS_PACKAGE) && $(STANDINS_ENV) swift package $(STANDINS_FLAGS) show-dependencies > $(STANDINS)/dependencies.txt
	@grep -q "sqlcipher.swift<$(STANDINS)/packages/SQLCipher.swift@4.15.0>" $(STANDINS)/dependencies.txt \
		&& grep -q "swift-sodium<$(STANDINS)/packages/swift-sodium@0.10.0>" $(STANDINS)/dependencies.txt \
		|| { echo "the Apple branch did not resolve both stand-ins:"; cat $(STANDINS)/dependencies.txt; exit 1; }
	@echo "Apple branch: SQLCipher.swift and swift-sodium resolved from the stand-ins"

test-standins: standins test-servers
	cd $(STANDINS_PACKAGE) && $(STANDINS_ENV) swift build --build-tests $(STANDINS_FLAGS)
	cd $(STANDINS_PACKAGE) && $(STANDINS_ENV) swift test --skip-build $(STANDINS_FLAGS) --no-parallel --skip '$(HEAVY_SUITES)'
	cd $(STANDINS_PACKAGE) && $(STANDINS_ENV) swift test --skip-build $(STANDINS_FLAGS) --no-parallel --filter '$(HEAVY_SUITES)'
	cd $(STANDINS_PACKAGE) && $(STANDINS_ENV) README_CLIENT_SWIFT_FLAGS="--config-path $(STANDINS)/config" ./scripts/readme-client.sh
	$(MAKE) check-default-resolution

# The default build resolves no Apple package (an app on Linux needs neither), whatever ran before it: fails if
# `swift package show-dependencies` here, without the switch, names either.
check-default-resolution:
	@mkdir -p $(STANDINS)
	@env -u SESSIONVAULT_APPLE_PACKAGES swift package show-dependencies > $(STANDINS)/default-dependencies.txt 2>&1 \
		|| { cat $(STANDINS)/default-dependencies.txt; exit 1; }
	@! grep -E "$(APPLE_PACKAGES_PATTERN)" $(STANDINS)/default-dependencies.txt \
		|| { echo "the default build resolves an Apple package"; exit 1; }
	@echo "default build: no Apple package resolved:"; grep -v "^Working copy\|^Creating\|^Fetching\|^Computing\|^Updating" $(STANDINS)/default-dependencies.txt

# Builds and runs the benchmark suite (its own package in Benchmarks/, own .build), exports the run
# as JMH JSON and prints the issue's figures from that same run, ending with PASS or FAIL <names>.
# SQLCIPHER=4 runs it against the 4.x engine of test-sqlcipher4 (built when absent) in its own
# scratch path, Benchmarks/.build-sqlcipher4: the private pkg-config directory picks the engine's
# header and library, LD_LIBRARY_PATH loads it (its soname, libsqlcipher.so.1, is not Debian's
# .so.0, so a wrong link cannot load silently), and ldd on the built suite must show it.
SQLCIPHER ?= 3
ifeq ($(SQLCIPHER),4)
BENCH_DEPS := sqlcipher4
BENCH_ENV := PKG_CONFIG_PATH=$(SQLCIPHER4)/pkgconfig LD_LIBRARY_PATH=$(SQLCIPHER4_LIB)
BENCH_SCRATCH := .build-sqlcipher4
else
BENCH_DEPS :=
BENCH_ENV :=
BENCH_SCRATCH := .build
endif

bench: deps $(BENCH_DEPS)
	@command -v python3 >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3; }
	@# touch: SwiftPM may keep an old build plan of the path dependency (..) and miss source files added there.
	cd Benchmarks && touch Package.swift && rm -f $(BENCH_SCRATCH)/bench-results/Current_run.jmh.json && \
		{ $(BENCH_ENV) swift package --scratch-path $(BENCH_SCRATCH) --allow-writing-to-package-directory benchmark run --format jmh --path $(BENCH_SCRATCH)/bench-results --no-progress || echo "benchmark run failed (exit $$?)"; } && \
		{ [ "$(SQLCIPHER)" != 4 ] || $(BENCH_ENV) ldd $(BENCH_SCRATCH)/release/SessionVaultBenchmarks | grep -q "$(SQLCIPHER4_LIB)/libsqlcipher" \
			|| { echo "the benchmark suite is not linked to $(SQLCIPHER4_LIB)"; exit 1; }; } && \
		python3 report.py $(BENCH_SCRATCH)/bench-results/Current_run.jmh.json

# The README's and the DocC articles' Swift code is compiled source (Examples/ReadmeExamples,
# built with the package): every marked block must equal its file, every example must be shown
# in the README or an article, every relative link of README, ARCHITECTURE, CONTRIBUTING and
# Benchmarks/README must resolve, and a client package built from the README's manifest and the
# blocks of the README and its named articles runs the story (launch, sign-in, API call,
# sign-out) against django-oauth-toolkit. See scripts/readme_examples.py and readme-client.sh.
check-readme: deps test-servers
	./scripts/readme-client.sh

# The CLI's help texts and the README's transcript are checked against the built binary by
# SnapshotTests (Tests/SessionVaultCLITests/Snapshots). After a deliberate change to a help text
# or to the transcript's commands, this rewrites the files from the binary; then paste
# Snapshots/transcript.txt into the README (readme_examples.py check fails until it matches).
cli-snapshots: deps
	swift build --build-tests
	SESSIONVAULT_UPDATE_SNAPSHOTS=1 swift test --skip-build --filter SnapshotTests

# The sessionvault manual page, from the commands' help texts (swift-argument-parser's
# generate-manual plugin, debug build): .build/plugins/GenerateManual/outputs/sessionvault/
# sessionvault.1; read it with `man -l`. MANUAL_DATE fixes the date it carries.
MANUAL_DATE ?= $(shell date -u +%Y-%m-%d)
manual: deps
	swift package generate-manual --configuration debug --date $(MANUAL_DATE)
	@echo "man -l .build/plugins/GenerateManual/outputs/sessionvault/sessionvault.1"

# DocC (swift-docc-plugin): the catalog in Sources/SessionVault/Documentation.docc and every
# public symbol's doc comment, warnings treated as errors. The archive lands in
# .build/plugins/Swift-DocC/outputs/SessionVault.doccarchive.
docs: deps
	swift package generate-documentation --target SessionVault --warnings-as-errors

# The public API as text (api.txt): `make api` rewrites it after a deliberate change; `make
# check-api` fails when the built API differs from it or a public symbol has no doc comment.
api: deps
	swift package dump-symbol-graph --skip-synthesized-members > /dev/null
	python3 scripts/api_listing.py write

check-api: deps
	swift package dump-symbol-graph --skip-synthesized-members > /dev/null
	python3 scripts/api_listing.py check

# No Linux-only call in the library, the CLI or the test hosts outside an #if branch that has an
# Apple counterpart, and no glibc branch without an Android (Bionic) one.
# The library's layers point one way (Secrets < Model < Storage < Crypto < Integrity < Vault <
# Resume): fails when a lower folder names a type declared in a higher one, or when a
# file of Vault/ or Resume/ names a table in SQL (each table's statements are its owner's).
check-layers:
	python3 scripts/layer_check.py --self-test
	python3 scripts/layer_check.py

check-portability:
	python3 scripts/check-portability.py Sources

# Every Swift target of this package (library, SessionVaultTesting, CLI, test hosts, examples,
# tests) builds with no warning: SESSIONVAULT_WARNINGS_AS_ERRORS=1 makes the manifest add
# -warnings-as-errors to our targets only (see the end of Package.swift for why not -Xswiftc).
# Our targets recompile when the switch changes; the dependencies do not.
check-warnings: deps
	SESSIONVAULT_WARNINGS_AS_ERRORS=1 swift build --build-tests

# The layout swift-format (shipped with the toolchain) keeps, configured in .swift-format: the
# library, the CLI, the test hosts, the tests, the benchmarks, the plugins and the fuzz harness.
# Examples/ is left as written: its files are shown byte for byte in the README and the DocC
# articles, laid out for reading there. `make format` rewrites the files in place.
FORMATTED := Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks Plugins Fuzz/Package.swift Fuzz/Sources
check-format:
	swift format lint --strict --recursive --parallel $(FORMATTED)

format:
	swift format format --in-place --recursive --parallel $(FORMATTED)

# What CI runs besides the test legs. check-warnings last: its flag rebuilds our targets, and
# nothing after it needs the ordinary build again.
check: check-portability check-layers check-format check-api docs check-readme check-warnings

# libFuzzer targets (Fuzz/, their own package: see Fuzz/Package.swift), each run for
# FUZZ_SECONDS on a copy of its committed corpus (Fuzz/Corpus/<target>, never grown by a run)
# with its dictionary (Fuzz/Dictionaries); fails when any target crashes, hangs (-timeout),
# leaks or exceeds -rss_limit_mb. Every module is built with ASan and coverage; libFuzzer is
# linked into the harness only. ASan's leak check is off while building: the build runs the
# (instrumented) migration embedder, whose exit is not under test. The targets are the cases of
# `FuzzTarget.Name` (Sources/_SessionVaultFuzzing), listed by the built harness (`--list`):
# FUZZ_TARGETS="header tombstone" runs some of them. FUZZ_SCRATCH moves the build.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SCRATCH ?= $(CURDIR)/.build-fuzz
FUZZ_HARNESS = $(FUZZ_SCRATCH)/release/sessionvault-fuzz
FUZZ_SWIFT_FLAGS = -c release --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) \
	-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table

fuzz-build: deps
	@# touch: SwiftPM may keep an old build plan of the path dependency (..) and miss source files added there.
	touch Fuzz/Package.swift
	ASAN_OPTIONS=detect_leaks=0 swift build $(FUZZ_SWIFT_FLAGS)

fuzz: fuzz-build
	./scripts/fuzz.sh $(FUZZ_HARNESS) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Rewrites the seed corpora from files the library makes (each target writes its own seeds).
fuzz-corpus: fuzz-build
	@for t in $${FUZZ_TARGETS:-$$(ASAN_OPTIONS=detect_leaks=0 $(FUZZ_HARNESS) --list)}; do rm -rf Fuzz/Corpus/$$t; \
		SESSIONVAULT_FUZZ_TARGET=$$t SESSIONVAULT_FUZZ_WRITE_SEEDS=Fuzz/Corpus/$$t $(FUZZ_HARNESS) || exit 1; done

# AddressSanitizer (with LeakSanitizer) over the whole suite, in its own scratch path: the tests,
# and the CLI and test hosts they start, all built with it. Fails on any report from any of those
# processes (scripts/sanitizer-run.sh: options commented there). Leaks outside this code
# (Foundation, libcurl, XCTest, ArgumentParser, the Swift runtime) are suppressed in
# Tests/Sanitizers/lsan.supp, each with its evidence.
check-asan: deps test-servers
	swift build --build-tests --sanitize=address --scratch-path .build-asan
	@# The crash-state explorer records calls through an LD_PRELOAD library, which the
	@# sanitizer's own interceptors of write and fsync would shadow: it runs in both test legs,
	@# and so does the sweep of kill points inside a sign-in that uses the same library
	@# (PRELOAD_SUITES; the histories skip that step under a sanitizer and say so).
	@# One test at a time: ASan makes every test several times slower, and in parallel on 2
	@# cores the suites' event waits (a loop going to sleep, a server answering) ran out of time
	@# while blocked threads held the pool. 50 histories here; the test legs run 200.
	./scripts/sanitizer-run.sh address .build-asan --no-parallel --skip '$(HEAVY_SUITES)|$(PRELOAD_SUITES)'
	HISTORY_COUNT=50 ./scripts/sanitizer-run.sh address .build-asan --no-parallel --filter 'SessionHistoryTests|RequestBudgetTests'

# ThreadSanitizer over the concurrency suites: single flight in one process and across
# processes, events, the refresh lock, processes racing to create, replace or sign out, and the
# peer bugs of those kinds. One regular expression over the suites' type names.
TSAN_SUITES := MultiProcessTests|ContentionTests|OAuthServerTests|RefreshLockTests|ConcurrentCreationTests|ReplacedElsewhereTests|PeerBug|OneWayInTests|ResumeManagerTests|SessionLifecycleTests|VaultBehaviourTests|RekeyWithAnotherProcessTests|WipedEventTests|ContentionCommandTests
check-tsan: deps test-servers
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	./scripts/sanitizer-run.sh thread .build-tsan --filter '$(TSAN_SUITES)'

# Hardening, run by CI after the test legs: memory errors and data races (both sanitizers) and
# inputs no test wrote (every fuzz target).
check-hard: check-asan check-tsan fuzz

clean:
	rm -rf .build .demo .build-readme-client .build-standins
