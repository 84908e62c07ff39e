# tile - top-level entry points. `make demo` and `make test` work on a fresh
# Debian 12 machine: they install missing packages first (make deps).
BUILD ?= build
JOBS ?= $(shell nproc)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")

DEB_PACKAGES := cmake ninja-build g++ python3 llvm-19-dev llvm-19-tools libfmt-dev \
  doctest-dev libcli11-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libncurses-dev \
  clang-14 libclang-rt-14-dev libssl-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test demo bench clean test-asan fuzz

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	else echo "all dependencies present"; fi

$(BUILD)/build.ninja $(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (docs/robustness.md), built by clang-14 in the directory fuzz/run.sh
# (the fuzz.smoke test) builds its libFuzzer targets in, configured by the
# same script (fuzz/configure.sh), so the libraries both need compile once,
# and every translation unit is compiled by clang as well as by gcc.
ASAN_BUILD := $(abspath $(BUILD))/fuzz-build
test-asan: deps
	fuzz/configure.sh $(ASAN_BUILD)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp ctest --output-on-failure -j $(JOBS)

# libFuzzer (clang-14): each target runs FUZZ_SECONDS; see fuzz/run.sh.
FUZZ_SECONDS ?= 300
fuzz: deps
	fuzz/run.sh $(abspath $(BUILD))/fuzz-build $(FUZZ_SECONDS)

demo: build
	$(BUILD)/bin/tilec run dsl_examples/lesson2_matmul.tile

bench: build
	bench/run.sh

clean:
	rm -rf $(BUILD)
