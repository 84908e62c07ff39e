#!/usr/bin/env bash
# fuzz/configure.sh BUILD_DIR - configures BUILD_DIR as the clang-14
# ASan + UBSan + libFuzzer-instrumented build (-DTILE_FUZZ=ON
# -DTILE_SANITIZE=ON). The one place these options live: fuzz/run.sh (the
# fuzz.smoke test) builds its fuzz targets there, and `make test-asan`
# builds and tests everything in the same directory, so the two never
# reconfigure it against each other. FUZZ_CC / FUZZ_CXX pick the compilers.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz/configure.sh BUILD_DIR}
generator=Ninja
command -v ninja >/dev/null 2>&1 || generator="Unix Makefiles"
cmake -S "$src" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${FUZZ_CC:-clang-14}" \
  -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++-14}" -DTILE_FUZZ=ON -DTILE_SANITIZE=ON >/dev/null
