#!/usr/bin/env bash
# quick matmul experiment on the H200: 4096^3 tile configs + float64 check
set -u
export PATH=/usr/local/cuda/bin:$PATH
cat dsl_examples/lesson2_matmul.tile bench/gpu/matmul_sizes.tile > /tmp/ms.tile
for dt in ${DTS:-bfloat16 float16}; do
 for st in ${STS:-3 4}; do
  rm -rf /tmp/x && mkdir -p /tmp/x
  timeout 120 build/bin/tilec bench /tmp/ms.tile --reps 30 -D DTYPE=$dt -D ONLY=${ONLY:-4096} -D STAGES=$st -D WIDE=${WIDE:-0} -D OUT_DIR=/tmp/x -D SEED=$RANDOM > /tmp/b.txt 2>&1
  grep -h "case\|tflops\|error" /tmp/b.txt | sed 's/^/  /'
  python3 bench/gpu/check_matmul.py /tmp/x 2>&1 | grep -i "fail\|summary\|checked\|pass" | tail -2
 done
done
