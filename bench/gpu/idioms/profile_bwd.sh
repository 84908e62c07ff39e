#!/bin/bash
# profile_bwd.sh BUILD OUTDIR - where attention_bwd D64 non-causal (0.90x
# Triton in session 27) loses, on the GPU machine: tile's per-kernel times
# (preprocess, dkdv, dq) and Triton's whole sequence at the bench size,
# then Nsight Compute on both compilers' dkdv and dq (speed of light, warp
# states, scheduler, occupancy, instruction mix) into OUTDIR/ncu_*.csv,
# with a short summary on stdout. About three minutes.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
T=$1/bin/tilec
W=$2
mkdir -p "$W"
export PATH=/usr/local/cuda/bin:$PATH
cd "$root"
"$T" bench bench/gpu/idioms/attention_bwd.tile -D BENCH=1 -D UNTIL=2 > "$W/bwd_tile.txt" 2>&1
IDIOMS_UNTIL=2 python3 bench/gpu/idioms/triton_idioms.py . --parts attention_bwd > "$W/bwd_triton.txt" 2>&1
grep -h "case:\|bench:" "$W/bwd_tile.txt" | cut -c1-170
grep -h "triton_perf" "$W/bwd_triton.txt" | cut -c1-230
sections=(--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy
          --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
          --section InstructionStats)
timeout 120 ncu --clock-control none -k regex:'attn_bwd_(dkdv|dq)' --launch-count 2 "${sections[@]}" --csv \
  --page details "$T" bench bench/gpu/idioms/attention_bwd.tile -D BENCH=1 -D UNTIL=1 --reps 1 \
  > "$W/ncu_tile.csv" 2> "$W/ncu_tile.err"
IDIOMS_UNTIL=1 timeout 150 ncu --clock-control none -k regex:'attn_bwd_(dkdv|dq)' --launch-count 2 "${sections[@]}" \
  --csv --page details python3 bench/gpu/idioms/triton_idioms.py . --parts attention_bwd \
  > "$W/ncu_triton.csv" 2> "$W/ncu_triton.err"
python3 - "$W" <<'PY'
import csv, sys
keys = ("Duration", "Registers Per Thread", "Achieved Occupancy", "Theoretical Occupancy", "Compute (SM) Throughput",
        "Memory Throughput", "Issued Warp Per Scheduler", "No Eligible", "Warp Cycles Per Issued Instruction",
        "Block Limit Registers", "Block Limit Shared Mem", "Dynamic Shared Memory Per Block")
for side in ("tile", "triton"):
    try:
        rows = list(csv.reader(open(f"{sys.argv[1]}/ncu_{side}.csv")))
    except OSError as e:
        print(side, e)
        continue
    hdr = None
    for r in rows:
        if r and r[0] == "ID":
            hdr = r
        elif hdr and len(r) == len(hdr):
            d = dict(zip(hdr, r))
            if any(k in d.get("Metric Name", "") for k in keys):
                print(side, d.get("Kernel Name", "")[:20], d["Metric Name"], d.get("Metric Value"), d.get("Metric Unit"))
PY
