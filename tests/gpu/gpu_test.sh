#!/usr/bin/env bash
# gpu_test.sh TILEC FILE - one ctest entry of the `gpu` label: runs FILE on
# the GPU with every launch checked against the interpreter. Without a CUDA
# driver it says it is skipped and exits 77, which ctest reports as skipped
# (SKIP_RETURN_CODE; CI has no GPU).
tilec=$1
file=$2
if ! "$tilec" --version 2>/dev/null | grep -q "^CUDA driver"; then
  echo "skipped: no CUDA driver ($("$tilec" --version 2>/dev/null | tail -n 1))"
  exit 77
fi
exec "$tilec" run --check-gpu "$file"
