# Quick start on a fresh Debian machine with Swift:
#   make run    installs what is missing, then runs the demo tour
#   make test   installs what is missing, then runs the whole test suite

APT_PACKAGES := libsqlcipher-dev libsodium-dev sqlcipher sqlite3 pkg-config python3 python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build run test test-servers bench clean

# Installs the C libraries (and the sqlcipher / sqlite3 shells the tests drive, and python3 with
# venv for the test authorization server) when absent.
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

# The real authorization server the tests start: django-oauth-toolkit (pinned in
# Tests/Servers/oauth/requirements.txt) in .build-oauth-venv, from PyPI once, then reused.
test-servers: deps
	bash Tests/Servers/oauth/setup.sh

test: deps test-servers
	swift build --build-tests
	swift test --skip-build

# Builds and runs the benchmark suite (its own package in Benchmarks/, own .build), exports the run
# as JMH JSON and prints the issue's figures from that same run, ending with PASS or FAIL <names>.
bench: deps
	@command -v python3 >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3; }
	@# touch: SwiftPM may keep an old build plan of the path dependency (..) and miss source files added there.
	cd Benchmarks && touch Package.swift && rm -f .build/bench-results/Current_run.jmh.json && \
		{ swift package --allow-writing-to-package-directory benchmark run --format jmh --path .build/bench-results --no-progress || echo "benchmark run failed (exit $$?)"; } && \
		python3 report.py .build/bench-results/Current_run.jmh.json

clean:
	rm -rf .build .demo
