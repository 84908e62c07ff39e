#!/bin/bash
# check_ptxas.sh TILEC SRCROOT - emits PTX for every dsl_examples kernel with
# the signatures its host code launches it with (and a few tests/gpu and
# bench/gpu/idioms kernels at their bench signatures), and assembles each with
# `ptxas -arch=sm_90a`. Skips (exit 0 with a message) when ptxas is absent.
set -u
TILEC=$1
ROOT=$2
PTXAS=$(command -v ptxas || true)
[ -z "$PTXAS" ] && [ -x /usr/local/cuda/bin/ptxas ] && PTXAS=/usr/local/cuda/bin/ptxas
if [ -z "$PTXAS" ]; then
  echo "ptxas not found: skipping"
  exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
COUNT=0
# file | kernel | signature | constexprs (-D ...) | num warps
while IFS='|' read -r file kernel sig defs warps; do
  [ -z "$file" ] && continue
  COUNT=$((COUNT + 1))
  name="$kernel.$COUNT"
  # shellcheck disable=SC2086
  if ! "$TILEC" compile "$ROOT/dsl_examples/$file" -k "$kernel" -s "$sig" $defs --num-warps "$warps" \
      --emit ptx -o "$TMP/$name.ptx" 2> "$TMP/$name.err"; then
    echo "FAIL tilec: $file $kernel $sig $defs"; cat "$TMP/$name.err"; FAILED=1; continue
  fi
  if ! "$PTXAS" -arch=sm_90a -o "$TMP/$name.cubin" "$TMP/$name.ptx" 2> "$TMP/$name.err"; then
    echo "FAIL ptxas: $file $kernel $sig $defs"; cat "$TMP/$name.err"; FAILED=1; continue
  fi
  echo "ok   $file $kernel $sig $defs"
done <<'TABLE'
vector_add.tile|add_kernel|*fp32:16,*fp32:16,*fp32:16,i32|-D BLOCK_SIZE=1024|4
vector_add.tile|add_kernel|*fp16:16,*fp16:16,*fp16:16,i32|-D BLOCK_SIZE=1024|4
vector_add.tile|add_kernel|*i32:16,*i32:16,*i32:16,i32|-D BLOCK_SIZE=1024|4
vector_add.tile|add_kernel|*fp32,*fp32,*fp32,i32|-D BLOCK_SIZE=1024|4
softmax.tile|softmax_kernel|*fp32:16,*fp32:16,i32,i32,i32,i32|-D BLOCK_SIZE=1024|4
softmax.tile|softmax_kernel|*fp16:16,*fp16:16,i32,i32,i32,i32|-D BLOCK_SIZE=128|4
transpose.tile|transpose_kernel|*fp32:16,*fp32:16,i32,i32,i32,i32,i32,i32|-D BLOCK_M=32 -D BLOCK_N=32|4
transpose.tile|transpose_kernel|*fp32,*fp32,i32,i32,i32,i32,i32,i32|-D BLOCK_M=16 -D BLOCK_N=64|4
lesson2_matmul.tile|tile_fill_kernel|*fp32,i32,i32|-D BLOCK_M=16 -D BLOCK_N=16|4
lesson2_matmul.tile|matmul_kernel|*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32|-D N_ITERS=4 -D BLOCK_M=16 -D BLOCK_N=16 -D BLOCK_K=16|4
lesson2_matmul.tile|matmul_kernel|*fp16,*fp16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32|-D N_ITERS=5 -D BLOCK_M=16 -D BLOCK_N=16 -D BLOCK_K=16|4
lesson2_matmul.tile|matmul_kernel|*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32|-D N_ITERS=2 -D BLOCK_M=16 -D BLOCK_N=16 -D BLOCK_K=16|4
lesson2_matmul.tile|transpose_kernel|*fp32,*fp32,i32,i32,i32,i32,i32,i32|-D BLOCK_M=16 -D BLOCK_N=16|4
dropout.tile|seeded_dropout_kernel|*fp32:16,*fp32:16,i32,fp32,i32|-D BLOCK=1024|4
layernorm.tile|layernorm_fwd_kernel|*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32|-D BLOCK_SIZE=1024|4
layernorm.tile|layernorm_fwd_kernel|*fp16:16,*fp16:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32|-D BLOCK_SIZE=512|4
matmul_grouped.tile|grouped_matmul_kernel|*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32:1,i32,i32:1,i32,i32:1|-D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 -D GROUP_SIZE_M=8 -D ACTIVATION=leaky_relu|4
matmul_grouped.tile|grouped_matmul_kernel|*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32|-D BLOCK_M=32 -D BLOCK_N=16 -D BLOCK_K=32 -D GROUP_SIZE_M=4 -D ACTIVATION=|4
flash_attention.tile|_attn_fwd|*fp16:16,*fp16:16,*fp16:16,fp32,*fp32:16,*fp16:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32,i32:16|-D HEAD_DIM=64 -D BLOCK_M=64 -D BLOCK_N=32 -D STAGE=3 -D EVEN_N=True|4
flash_attention.tile|_attn_fwd|*fp16,*fp16,*fp16,fp32,*fp32,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32|-D HEAD_DIM=32 -D BLOCK_M=32 -D BLOCK_N=16 -D STAGE=1 -D EVEN_N=False|4
../tests/gpu/shape_misc.tile|cat_flip_kernel|*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16|-D R=16 -D C=64|4
../tests/gpu/shape_misc.tile|sort_kernel|*fp32:16,*fp32:16|-D DESC=True -D R=4 -D C=64|4
../tests/gpu/shape_misc.tile|swizzle_kernel|*i32:16,*i32:16,i32,i32|-D G=2 -D BLOCK=64|4
../tests/gpu/pointer_casts.tile|gather_kernel|*i64:16,*fp32:16,i32|-D BLOCK=64|4
../bench/gpu/idioms/matmul.tile|matmul_kernel|*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1|-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D ACTIVATION=leaky_relu|8
../bench/gpu/idioms/matmul.tile|matmul_kernel|*fp8e4nv:16,*fp8e4nv:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:1,i32:16,i32:16,i32:1|-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=128 -D GROUP_SIZE_M=8 -D ACTIVATION=|8
../tests/gpu/fp8_dot.tile|mm_fp8|*fp8e5:16,*fp8e4nv:16,*fp32:16,i32,i32,i32,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1|-D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=128|4
../tests/gpu/fp8_dot.tile|mm_fp8|*fp8e4nv:16,*fp8e4nv:16,*fp32:16,i32,i32,i32,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1|-D BLOCK_M=64 -D BLOCK_N=32 -D BLOCK_K=64|4
../bench/gpu/idioms/matmul.tile|matmul_persistent_kernel|*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1|-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D NUM_SMS=132|8
../bench/gpu/idioms/attention_v1.tile|attn_fwd_v1|*fp16:16,*fp16:16,*fp16:16,fp32,*fp16:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16|-D BLOCK_M=128 -D BLOCK_N=64 -D HEAD_DIM=64 -D IS_CAUSAL=True|4
../bench/gpu/idioms/attention_v2.tile|_attn_fwd_tile|*fp16:16,*fp16:16,*fp16:16,fp32,*fp32:16,*fp16:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32,i32:16,i32:16|-D BLOCK_M=128 -D BLOCK_N=64 -D HEAD_DIM=128 -D STAGE=3|8
../bench/gpu/idioms/softmax.tile|softmax_persistent_kernel_tile|*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:16|-D BLOCK_SIZE=16384 -D NUM_STAGES=2|8
../bench/gpu/idioms/layernorm.tile|layer_norm_fwd_kernel|*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32|-D BLOCK_SIZE=8192|8
TABLE
[ "$FAILED" = 0 ] && echo "all $COUNT kernels assembled"
exit $FAILED
