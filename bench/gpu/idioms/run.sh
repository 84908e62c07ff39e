#!/usr/bin/env bash
# run.sh - the idioms benchmark (issue 18, item 5), side by side in one H200
# call: the kernels Triton users write, in the idioms of Triton's tutorials
# (03 matrix multiplication, 09 persistent matmul, 06 fused attention in its
# plain-pointer and block-pointer forms, 02 fused softmax, 05 layer norm),
# and the memory-bound fused kernels of LLM work written as Triton users
# write them (fused.tile: rmsnorm, residual add + rmsnorm, SwiGLU, RoPE,
# cross entropy, int8 row quantization, transpose, embedding gather),
# written for this benchmark in bench/gpu/idioms/*.tile, run
#   - under tile: `tilec bench FILE -D BENCH=1` (each file's main() runs its
#     case list; every timed launch is declared with bench_work(), so tilec
#     bench prints TFLOP/s or GB/s; every result is checked on the host
#     against float64 references, sampled at these sizes: see each header);
#   - under Triton 3.6 from the same files, with the same launch parameters,
#     and torch (cuBLAS, SDPA, torch.softmax, F.layer_norm; eager torch for
#     fused.tile's kernels), every result
#     checked against torch (triton_idioms.py; do_bench medians);
# and joined into one markdown table (join_idioms.py) at OUT/idioms.md:
# kernel, shape, config, tile, Triton, torch, tile/Triton, correct?.
#
#   usage: bench/gpu/idioms/run.sh BUILD_DIR [OUT_DIR]
#   env:   IDIOMS_FILES="matmul attention_v1 attention_v2 softmax layernorm variants fused"
#                                 (the default); attention_bwd (tutorial 06's
#                                 backward: preprocess + dkdv + dq as one case)
#                                 is a valid entry too, left out of the default
#                                 for time: run it alone (see below)
#          IDIOMS_DEADLINE_S=340  everything is cut off at this many seconds
#                                 (then the join runs: the whole stays < 6 min)
#          IDIOMS_TILE_S=210      tile's side is cut off at this many seconds,
#                                 so that Triton's side keeps its share
#          IDIOMS_REPS=30         tilec bench --reps (timed launches per case)
#          IDIOMS_ONLY=fp8        matmul.tile: only the cases whose kind contains it;
#                                 variants.tile: only the variants whose name does;
#                                 fused.tile: only the kernels whose name does
#          IDIOMS_FROM=n          every file: its cases n, n+1, ... only (tile and Triton)
#          IDIOMS_UNTIL=n         every file: its cases before n only
#          IDIOMS_SMALL=1         a dry run here, without a GPU: the small
#                                 sizes on tile's interpreter, no Triton side
#
# A failed tile case (a host check that fails, a launch that faults) ends its
# process; the file is then run again from the next case (-D FROM=n), and
# the table says FAIL for it. Raw outputs beside the table:
# idioms-tile-FILE.txt / .err, idioms-triton.jsonl / .err, idioms-times.txt.
#
# Measured on the H100 (session 27, before matmul.tile's three K-major cases):
# tile's side 166 s (variants.tile alone 75 s, cut off at the old 165 s
# limit in its last case's check), Triton's 44 s, 210 s in all.
# Time on the H200, estimated: tile's side about 1.5-2 min (host work
# dominates: randn and the float64 copies for the checks, ~25 s for the two
# 8192^3 inputs; 24 kernel compiles at 0.1-0.8 s; 30 timed launches a case,
# under 3 s even for slow kernels); Triton's side about 1.5 min (28 cold
# compiles at ~1-2 s, do_bench 100 ms a timing, f32 references).
# IDIOMS_FILES=attention_bwd, alone (estimated from this host's speed on a
# CPU machine, not measured on the H200): tile's side about 1-1.5 min (host:
# randn of the four (4, 32, 4096, D) inputs and arg_k, ~15 s at D 64 and
# ~30 s at D 128, and the sampled float64 checks, ~2-5 s a case; 14 kernel
# compiles; the forward that makes M and o, timed too but not counted);
# Triton's side under a minute (10 cold compiles, 8 do_bench timings, f32
# torch references). Added to the default list it would push tile's side
# past IDIOMS_TILE_S.
# fused.tile (in the default list, last), estimated, not measured on a GPU:
# its bench sizes' whole run on the interpreter of a 2-core CPU machine took
# 45 s, 15 s of it the 11 launches on the interpreter; so tile's side is
# about 15-30 s of host work (randn of ~430 M fp16 elements, NaN fills, the
# sampled checks) on the GPU host, Triton's side well under a minute (8
# kernels' cold compiles, 22 do_bench timings). With it the default list's
# tile side may reach IDIOMS_TILE_S (166 s without it on the H100): fused's
# last cases are then cut off (the one running says FAIL, the rest "-").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build}
out=${2:-${OUT:-/tmp/idioms}}
files=${IDIOMS_FILES:-matmul attention_v1 attention_v2 softmax layernorm variants fused}
deadline=${IDIOMS_DEADLINE_S:-340}
tile_deadline=${IDIOMS_TILE_S:-210}
reps=${IDIOMS_REPS:-30}
small=${IDIOMS_SMALL:-0}
only=${IDIOMS_ONLY:-}
mkdir -p "$out"
: > "$out/idioms-times.txt"

# Runs "$@" with what is left before the deadline $1 (at least 1 s) and
# logs its time and exit status under the name $2.
step() {
  local until=$1 name=$2 t0=$SECONDS left rc
  shift 2
  left=$((until - SECONDS))
  ((left < 1)) && left=1
  timeout "$left" "$@"
  rc=$?
  echo "$name: $((SECONDS - t0)) s, exit $rc" >> "$out/idioms-times.txt"
  return $rc
}

if [[ $small == 1 ]]; then
  mode=(bench --interpret -D BENCH=0)
else
  mode=(bench --reps "$reps" -D BENCH=1)
fi

tile_files=()
for f in $files; do
  log=$out/idioms-tile-$f.txt
  : > "$log"
  : > "$out/idioms-tile-$f.err"
  tile_files+=("$log")
  from=${IDIOMS_FROM:-0}
  part=$out/.part.txt
  while ((SECONDS < tile_deadline)); do
    step "$tile_deadline" "tile $f from $from" "$build/bin/tilec" "${mode[@]}" -D FROM="$from" -D UNTIL="${IDIOMS_UNTIL:-1000}" -D ONLY="$only" \
      "$here/$f.tile" > "$part" 2> "$part.err"
    rc=$?
    cat "$part" >> "$log"
    cat "$part.err" >> "$out/idioms-tile-$f.err"
    ((rc == 0)) && break
    # the case that failed: the first one of this run without its check line
    done_now=$(grep -c "^check: idioms " "$part")
    started=$(grep -c "^case: idioms " "$part")
    ((started == 0)) && break  # nothing ran (a compile error of the host program, the deadline)
    failed=$((from + done_now))
    echo "idioms-failed: $f case $failed exit $rc" >> "$log"
    { grep -m 1 -iE "error|fault" "$part.err" || tail -n 1 "$part.err"; } | sed 's/^/  /' >> "$log"
    from=$((failed + 1))
  done
  rm -f "$part" "$part.err"
done

: > "$out/idioms-triton.jsonl"
if [[ $small != 1 ]]; then
  left=$((deadline - SECONDS - 5))
  step "$deadline" "triton idioms" python3 "$here/triton_idioms.py" "$root" --parts "$(echo $files | tr ' ' ',')" \
    --deadline "$left" > "$out/idioms-triton.jsonl" 2> "$out/idioms-triton.err"
fi
python3 "$here/join_idioms.py" --triton "$out/idioms-triton.jsonl" "${tile_files[@]}" > "$out/idioms.md"
echo "total: $SECONDS s" >> "$out/idioms-times.txt"
cat "$out/idioms.md"
