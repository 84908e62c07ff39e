#!/usr/bin/env bash
# aot_check.sh TILEC API_TESTS OUTDIR - kernels compiled ahead of time, on
# the GPU: `tilec compile -o` writes vector add and the seed matmul as PTX
# and as cubins into OUTDIR, then api_tests loads them through
# Context::loadCompiled alone (no compiler linked) and checks every launch
# against C++ references (tests/unit/api/AotTests.cpp, the '*aot*' cases).
# Prints one PASS or FAIL line per step and exits 1 if any failed. Run it
# on the GPU machine, e.g.
#   tests/gpu/aot_check.sh build/bin/tilec build/tests/api_tests /tmp/aot
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 TILEC API_TESTS OUTDIR" >&2
  exit 2
fi
tilec=$1
api_tests=$2
out=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" || exit 1
failed=0

step() { # step NAME COMMAND... - runs it, prints PASS/FAIL NAME
  local name=$1
  shift
  if "$@" > "$out/$name.log" 2>&1; then
    echo "PASS $name"
  else
    echo "FAIL $name (exit $?; log: $out/$name.log)"
    { grep -E "ERROR|FATAL|error:" "$out/$name.log" || tail -n 20 "$out/$name.log"; } | head -n 30 | sed 's/^/    /'
    failed=1
  fi
}

# Pointers ':16' only: n is ragged (1000003 in the test). The matmul's unit
# strides are ':1'; its sizes and outer strides stay free, K ragged within
# the compiled N_ITERS * BLOCK_K.
for emit in ptx cubin; do
  step "compile-add.$emit" "$tilec" compile "$src/dsl_examples/vector_add.tile" -k add_kernel \
    -s '*fp32:16,*fp32:16,*fp32:16,i32' -D BLOCK_SIZE=1024 --emit "$emit" -o "$out/add.$emit"
  step "compile-matmul.$emit" "$tilec" compile "$src/dsl_examples/lesson2_matmul.tile" -k matmul_kernel \
    -s '*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,i32:1,i32,i32:1,i32,i32:1' \
    -D N_ITERS=5 -D BLOCK_M=32 -D BLOCK_N=32 -D BLOCK_K=16 --num-warps 4 --num-stages 2 --emit "$emit" \
    -o "$out/matmul.$emit"
done

# TILE_AOT_REQUIRE_GPU=1: no CUDA driver is a failure here, not a skip.
step "api_tests-aot" env TILE_AOT_DIR="$out" TILE_AOT_REQUIRE_GPU=1 "$api_tests" -tc='*aot*'
grep -E "^\[doctest\] (test cases|assertions)" "$out/api_tests-aot.log" | sed 's/^/    /'

if [ $failed -ne 0 ]; then
  echo "FAIL aot_check"
  exit 1
fi
echo "PASS aot_check"
