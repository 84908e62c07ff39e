#!/usr/bin/env bash
# bench/run.sh - builds and runs the benchmarks; appends the output to
# bench/results/pipeline-<host>.txt with the date and commit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake --build "$BUILD" --target tile-bench-pipeline tile-bench-interp -j "$(nproc)"
out="bench/results/pipeline-$(hostname -s).txt"
{
  echo "## $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD) on $(nproc) cores, $(uname -m)"
  taskset -c 0 "$BUILD/bin/tile-bench-pipeline" dsl_examples/lesson2_matmul.tile
  taskset -c 0 "$BUILD/bin/tile-bench-interp"
  echo
} | tee -a "$out"
