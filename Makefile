# Quick start on a fresh Debian machine with Swift:
#   make run    installs what is missing, then runs the demo tour
#   make test   installs what is missing, then runs the whole test suite

APT_PACKAGES := libsqlcipher-dev libsodium-dev sqlcipher sqlite3 pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build run test bench clean

# Installs the C libraries (and the sqlcipher / sqlite3 shells the tests drive) when absent.
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

test: deps
	swift build --build-tests
	swift test --skip-build

bench: deps
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark

clean:
	rm -rf .build .demo
