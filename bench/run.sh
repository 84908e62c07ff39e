#!/usr/bin/env bash
# bench/run.sh - builds and runs the benchmarks; appends the output, with
# the date and commit, to BUILD/bench-results/pipeline-<host>.txt (not a
# tracked file), or, with BENCH_RECORD=1, to the tracked
# bench/results/pipeline-<host>.txt (numbers meant to be quoted).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake --build "$BUILD" --target tile-bench-pipeline tile-bench-interp -j "$(nproc)"
if [[ ${BENCH_RECORD:-0} == 1 ]]; then
  out="bench/results/pipeline-$(hostname -s).txt"
else
  mkdir -p "$BUILD/bench-results"
  out="$BUILD/bench-results/pipeline-$(hostname -s).txt"
fi
{
  echo "## $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD) on $(nproc) cores, $(uname -m)"
  taskset -c 0 "$BUILD/bin/tile-bench-pipeline" dsl_examples/lesson2_matmul.tile
  taskset -c 0 "$BUILD/bin/tile-bench-interp"
  echo
} | tee -a "$out"
