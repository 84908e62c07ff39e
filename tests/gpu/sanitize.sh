#!/usr/bin/env bash
# sanitize.sh - every GPU program under NVIDIA's compute-sanitizer: memcheck,
# racecheck and synccheck (run_on_gpu.sh --sanitize calls it). Each program
# runs with `-D SMALL=1` when it reads SMALL (programs size themselves down
# for the sanitizer's slowdown), on the GPU, its own host checks on. One
# line per (tool, program) in $OUT/sanitize-summary.txt:
#   CLEAN | ERRORS n | FAIL (exit) | TIMEOUT
# and each tool's full report in $OUT/sanitize-<tool>.txt. Findings that
# are not tile's (the seed kernel's own unmasked reads) are listed in
# docs/robustness.md; the summary marks them EXPECTED.
#   usage: tests/gpu/sanitize.sh BUILD_DIR [PROGRAM...]
#   env:   SANITIZE_TOOLS="memcheck racecheck synccheck", SANITIZE_TIMEOUT=240,
#          SANITIZE_JOBS=6 (programs run in parallel)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
out=${OUT:-/tmp/tile-gpu-out}
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
limit=${SANITIZE_TIMEOUT:-240}
jobs=${SANITIZE_JOBS:-6}
mkdir -p "$out/sanitize"
export PATH=/usr/local/cuda/bin:$PATH
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=("$root"/dsl_examples/*.tile "$root"/tests/gpu/*.tile)

# Expected findings, not tile's: the seed matmul's unmasked reads past A's
# last row and B's last column (its loads mask only K; README "A first run").
expected() { [ "$1" = memcheck ] && [ "$2" = lesson2_matmul ]; }

one() {   # tool program
  local tool=$1 f=$2 name log defs=() rc n
  name=$(basename "$f" .tile)
  log="$out/sanitize/$tool-$name.txt"
  grep -q '\bSMALL\b' "$f" && defs=(-D SMALL=1)
  timeout "$limit" "$cs" --tool "$tool" --print-limit 20 --error-exitcode 99 \
    "$build/bin/tilec" run "${defs[@]}" "$f" > "$log" 2>&1
  rc=$?
  n=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
  if [ $rc = 124 ]; then echo "TIMEOUT $tool $name"
  elif [ "${n:-0}" != 0 ] || [ $rc = 99 ]; then
    if expected "$tool" "$name"; then echo "EXPECTED $tool $name (${n:-?} errors, see docs/robustness.md)"
    else echo "ERRORS ${n:-?} $tool $name"; fi
  elif [ $rc != 0 ]; then echo "FAIL (exit $rc) $tool $name"
  else echo "CLEAN $tool $name"; fi
}
export -f one expected
export build out limit cs

for t in $tools; do
  printf '%s\n' "${progs[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$0" "$1"' "$t" {}
done | sort -k2 > "$out/sanitize-summary.txt"
for t in $tools; do cat "$out"/sanitize/"$t"-*.txt > "$out/sanitize-$t.txt" 2>/dev/null; done
rm -rf "$out/sanitize"
echo "sanitizer: $(grep -c '^CLEAN' "$out/sanitize-summary.txt") clean, $(grep -c '^EXPECTED' "$out/sanitize-summary.txt") expected, $(grep -vcE '^(CLEAN|EXPECTED)' "$out/sanitize-summary.txt") other"
grep -vE '^CLEAN' "$out/sanitize-summary.txt"
! grep -qvE '^(CLEAN|EXPECTED)' "$out/sanitize-summary.txt"
