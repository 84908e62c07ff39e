#!/usr/bin/env bash
# run_h200.sh - the GPU benchmark, side by side, in one run on the H200:
# tile (tilec bench on bench/gpu/cases.tile and matmul_sizes.tile), Triton
# 3.6 on the same kernel sources and block configs, torch (copy bandwidth,
# cuBLAS; for fp8, cuBLASLt through torch._scaled_mm with unit scales);
# every matmul_sizes result is checked against float64
# (check_matmul.py; Triton's and cuBLAS's in triton_side.py). Writes the
# joined tables to $OUT/bench-gpu.md (or stdout) and the raw outputs and
# per-step times (bench-times.txt) beside it.
#   usage: bench/gpu/run_h200.sh BUILD_DIR [OUT_DIR]
#   env:   BENCH_PARTS="seed sizes" (default: both; "idioms" adds the
#            idioms benchmark, bench/gpu/idioms/run.sh: the kernels of
#            Triton's tutorials under tile, Triton and torch, about 5 min
#            alone, so `BENCH_PARTS=idioms` is a call of its own; its table
#            goes to $OUT/idioms/idioms.md and is appended to bench-gpu.md)
#          SIZES_DIR=/tmp/tile-matmul-sizes (A, B, C .npy files, ~10 GB at
#            peak (matmul_sizes.tile counts them), deleted after the check;
#            not under OUT: too big to return)
#          BENCH_DEADLINE_S=570 (steps are cut off at this many seconds from
#            the start, so that the join still runs inside a 10-minute call)
#
# Time on the H200, estimated (each step's real time lands in
# bench-times.txt): seed part (cases.tile, sweep.tile, Triton's seed cases)
# about 2 min. Sizes part: tilec bench about 1.5 min, mostly host work
# (randn at ~40 ns an element and .npy writes: ~30 s for f16 and bf16 each,
# ~20 s for f32, from timings of the host evaluator on a 2-core VM), 65
# kernel compiles at 0.1-0.3 s, kernels timed 5 + 30 times (under 0.4 s a
# config even at 8192^3); check_matmul.py about 0.5 min (6.5 GB of .npy
# read back, float64 GEMMs on the GPU); Triton and cuBLAS about 2 min (65
# cold Triton compiles at ~1-2 s, do_bench rep=100 ms each). fp8
# (float8_e4m3fn, 3 configs x 5 shapes, run last on both sides) adds, by
# estimate, 20 s of tilec bench, a few s of check and 30-40 s of Triton
# and cuBLASLt. In all about 7-8 min; the deadline stops any step that
# would push past 570 s.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-${OUT:-/tmp}}
parts=${BENCH_PARTS:-seed sizes}
sizes_dir=${SIZES_DIR:-/tmp/tile-matmul-sizes}
deadline=${BENCH_DEADLINE_S:-570}
seed=$(date +%s) # fresh random data each run, on both sides (printed in the outputs)
mkdir -p "$out"
: > "$out/bench-times.txt"
: > "$out/bench-tile.err"
: > "$out/bench-sizes.err"

# Runs "$@" with what is left before the deadline (at least 1 s) and logs
# its time and exit status under the name $1.
step() {
  local name=$1 t0=$SECONDS left rc
  shift
  left=$((deadline - SECONDS))
  ((left < 1)) && left=1
  timeout "$left" "$@"
  rc=$?
  echo "$name: $((SECONDS - t0)) s, exit $rc" >> "$out/bench-times.txt"
  return $rc
}

: > "$out/bench-tile.txt"
: > "$out/bench-sweep.txt"
if [[ " $parts " == *" seed "* ]]; then
  step "tilec bench cases" "$build/bin/tilec" bench "$root/bench/gpu/cases.tile" \
    > "$out/bench-tile.txt" 2>> "$out/bench-tile.err"
  echo "tilec bench exit $?" >> "$out/bench-tile.err"
  step "tilec bench sweep" "$build/bin/tilec" bench "$root/bench/gpu/sweep.tile" > "$out/bench-sweep.txt" 2>&1
  echo "tilec bench sweep exit $?" >> "$out/bench-tile.err"
fi

: > "$out/bench-sizes.txt"
: > "$out/check-sizes.txt"
if [[ " $parts " == *" sizes "* ]]; then
  cat "$root/dsl_examples/lesson2_matmul.tile" "$root/bench/gpu/matmul_sizes.tile" > "$out/bench_sizes_all.tile"
  rm -rf "$sizes_dir" && mkdir -p "$sizes_dir"
  # One process per dtype: a launch that fails ends only its dtype's cases.
  for dt in float16 bfloat16 float32 float8_e4m3fn; do
    step "tilec bench sizes $dt" "$build/bin/tilec" bench "$out/bench_sizes_all.tile" --reps 30 \
      -D DTYPE="$dt" -D OUT_DIR="$sizes_dir" -D SEED="$seed" >> "$out/bench-sizes.txt" 2>> "$out/bench-sizes.err"
    echo "tilec bench sizes $dt exit $?" >> "$out/bench-tile.err"
  done
  step "check_matmul" python3 "$root/bench/gpu/check_matmul.py" "$sizes_dir" --bench "$out/bench-sizes.txt" \
    > "$out/check-sizes.txt" 2>&1
  echo "check_matmul exit $?" >> "$out/bench-tile.err"
  du -sh "$sizes_dir" >> "$out/bench-times.txt" 2>&1
  rm -rf "$sizes_dir"
fi

if [[ " $parts " == *" seed "* || " $parts " == *" sizes "* ]]; then
  step "triton side" python3 "$root/bench/gpu/triton_side.py" "$root" --parts "${parts// /,}" --seed "$seed" \
    > "$out/bench-triton.jsonl" 2> "$out/bench-triton.err"
  echo "triton side exit $?" >> "$out/bench-triton.err"
  python3 "$root/bench/gpu/join.py" "$out/bench-tile.txt" "$out/bench-triton.jsonl" \
    --sizes "$out/bench-sizes.txt" --check "$out/check-sizes.txt" > "$out/bench-gpu.md"
else
  : > "$out/bench-gpu.md"
fi
if [[ " $parts " == *" idioms "* ]]; then
  # its own deadline: what is left of ours less 10 s for the joins, at most
  # run.sh's default 340 s; tile's side gets 62 % of it
  idioms_s=$((deadline - SECONDS - 10))
  ((idioms_s > 340)) && idioms_s=340
  IDIOMS_DEADLINE_S=$idioms_s IDIOMS_TILE_S=$((idioms_s * 62 / 100)) \
    step "idioms" "$root/bench/gpu/idioms/run.sh" "$build" "$out/idioms" > /dev/null 2> "$out/idioms.err"
  {
    echo
    echo "idioms of Triton's tutorials (bench/gpu/idioms, raw outputs in idioms/):"
    echo
    cat "$out/idioms/idioms.md"
  } >> "$out/bench-gpu.md"
fi
if [[ -s "$out/bench-sweep.txt" ]]; then
  {
    echo
    echo "tile-only sweep (bench/gpu/sweep.tile):"
    echo
    grep -E "^(case|bench):" "$out/bench-sweep.txt" | sed 's/^bench: matmul_kernel grid=[^ ]* /  /'
  } >> "$out/bench-gpu.md"
fi
echo "total: $SECONDS s" >> "$out/bench-times.txt"
cat "$out/bench-gpu.md"
