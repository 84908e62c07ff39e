#!/usr/bin/env bash
# run_on_gpu.sh - the GPU test-and-bench sequence, run in one call on the
# H200 (see README, "GPU tests"): the driver runtime's tests, every example
# and every tests/gpu program on the GPU with each launch checked against
# the interpreter, then the side-by-side benchmark. Logs go to $OUT.
#   usage: tests/gpu/run_on_gpu.sh BUILD_DIR [--no-bench] [--sanitize]
# --sanitize: after the programs, every program again under compute-sanitizer
# (memcheck, racecheck, synccheck; tests/gpu/sanitize.sh), instead of the
# benchmark.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${OUT:-/tmp/tile-gpu-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  "$build/bin/tilec" --version
} > "$out/env.txt" 2>&1
"$build/tests/cuda_tests" > "$out/cuda_tests.txt" 2>&1
echo "cuda_tests exit $?" | tee -a "$out/summary.txt"
# Each program runs as its own process (TILE_GPU_JOBS at a time, default 4:
# most of a --check-gpu run is the interpreter's host work, so several share
# the GPU well); logs in order into gpu_programs.txt, PASS/FAIL lines into
# summary.txt.
jobs=${TILE_GPU_JOBS:-4}
progs=$out/programs
mkdir -p "$progs"
export build progs
list=$out/programs.list
: > "$list"
for f in "$root"/dsl_examples/*.tile "$root"/tests/gpu/*.tile; do
  # A program whose GPU results are legitimately order-dependent (atomics'
  # returned old values) says "# gpu-check: self": its host main's own
  # order-independent checks judge the GPU run instead of --check-gpu.
  check=--check-gpu
  grep -q '^# gpu-check: self' "$f" && check=none
  echo "$f $check" >> "$list"
done
# GPU-only programs (no interpreter semantics): their own host checks judge them.
for f in "$root"/tests/gpu/gpu_only/*.tile; do echo "$f none" >> "$list"; done
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 bash -c '
  f=$0; check=$1; [ "$check" = none ] && check=
  name=$(basename "$(dirname "$f")")-$(basename "$f" .tile)
  { echo "== $f"; timeout 300 "$build/bin/tilec" run $check "$f" 2>&1; echo "exit $?"; } > "$progs/$name.txt"
' < "$list"
pass=0; fail=0
while read -r f _; do
  name=$(basename "$(dirname "$f")")-$(basename "$f" .tile)
  cat "$progs/$name.txt" >> "$out/gpu_programs.txt"
  if [ "$(tail -n 1 "$progs/$name.txt")" = "exit 0" ]; then
    pass=$((pass + 1)); echo "PASS $(basename "$f")" >> "$out/summary.txt"
  else
    fail=$((fail + 1)); echo "FAIL $(basename "$f")" >> "$out/summary.txt"
  fi
done < "$list"
rm -rf "$progs"
echo "gpu programs: $pass passed, $fail failed" | tee -a "$out/summary.txt"
# A faulting kernel: exit 1 and the driver's error naming the kernel.
"$build/bin/tilec" run "$root/tests/gpu/faults/far_store.tile" > "$out/fault.txt" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "kernel 'far_store_kernel' faulted: CUDA_ERROR_ILLEGAL_ADDRESS" "$out/fault.txt"; then
  echo "PASS fault reported by name" | tee -a "$out/summary.txt"
else
  echo "FAIL fault (exit $rc)" | tee -a "$out/summary.txt"
fi
# The embedding example on memory and a stream the host made with the CUDA
# driver, its kernels precompiled by tilec (no compiler in the example).
if [ -x "$build/bin/inference_step" ]; then
  aot=$out/inference-aot
  mkdir -p "$aot"
  {
    "$build/bin/tilec" compile "$root/dsl_examples/host/inference.tile" -k layer_norm_kernel \
      -s '*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,fp32' -D BLOCK=1024 --emit ptx -o "$aot/layer_norm.ptx" &&
    "$build/bin/tilec" compile "$root/dsl_examples/host/inference.tile" -k linear_gelu_kernel \
      -s '*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 \
      --emit ptx -o "$aot/linear_gelu.ptx" &&
    "$build/bin/tilec" compile "$root/dsl_examples/host/inference.tile" -k softmax_kernel \
      -s '*fp32:16,*fp32:16,i32' -D BLOCK=1024 --num-warps 8 --emit ptx -o "$aot/softmax.ptx" &&
    "$build/bin/inference_step" --device gpu --compiled "$aot"
  } > "$out/inference_step.txt" 2>&1
  rc=$?
  if [ $rc = 0 ]; then echo "PASS inference_step (precompiled, host memory)" | tee -a "$out/summary.txt"
  else echo "FAIL inference_step (exit $rc)" | tee -a "$out/summary.txt"; fi
fi
if [[ " $* " == *" --sanitize "* ]]; then
  "$root/tests/gpu/sanitize.sh" "$build" >> "$out/summary.txt" 2>&1
  echo "sanitize exit $?" >> "$out/summary.txt"
elif [[ " $* " != *" --no-bench "* ]]; then
  "$root/bench/gpu/run_h200.sh" "$build" "$out" > /dev/null 2>&1
  echo "bench exit $?" >> "$out/summary.txt"
fi
cat "$out/summary.txt"
