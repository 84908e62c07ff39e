#!/usr/bin/env bash
# run_h200.sh - the GPU benchmark, side by side, in one run on the H200:
# tile (tilec bench on bench/gpu/cases.tile), Triton 3.6 on the same kernel
# sources, torch (copy bandwidth, cuBLAS). Writes the joined table to
# $OUT/bench-gpu.md (or stdout) and the raw outputs beside it.
#   usage: bench/gpu/run_h200.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-${OUT:-/tmp}}
mkdir -p "$out"
cat "$root/dsl_examples/vector_add.tile" "$root/dsl_examples/lesson2_matmul.tile" "$root/bench/gpu/cases.tile" \
  > "$out/bench_cases_all.tile"
"$build/bin/tilec" bench "$out/bench_cases_all.tile" > "$out/bench-tile.txt" 2> "$out/bench-tile.err"
echo "tilec bench exit $?" >> "$out/bench-tile.err"
cat "$root/dsl_examples/lesson2_matmul.tile" "$root/bench/gpu/sweep.tile" > "$out/bench_sweep_all.tile"
"$build/bin/tilec" bench "$out/bench_sweep_all.tile" > "$out/bench-sweep.txt" 2>&1
echo "tilec bench sweep exit $?" >> "$out/bench-tile.err"
python3 "$root/bench/gpu/triton_side.py" "$root" > "$out/bench-triton.jsonl" 2> "$out/bench-triton.err"
echo "triton side exit $?" >> "$out/bench-triton.err"
python3 "$root/bench/gpu/join.py" "$out/bench-tile.txt" "$out/bench-triton.jsonl" > "$out/bench-gpu.md"
{
  echo
  echo "tile-only sweep (bench/gpu/sweep.tile):"
  echo
  grep -E "^(case|bench):" "$out/bench-sweep.txt" | sed 's/^bench: matmul_kernel grid=[^ ]* /  /'
} >> "$out/bench-gpu.md"
cat "$out/bench-gpu.md"
