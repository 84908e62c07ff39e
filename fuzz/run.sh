#!/usr/bin/env bash
# fuzz/run.sh BUILD_DIR SECONDS [TARGET...] - builds the libFuzzer targets
# (clang-14, ASan + UBSan, -DTILE_FUZZ=ON) in BUILD_DIR, makes their seed
# corpora and runs each target (default: frontend ir npy cache host) for SECONDS.
#
# The corpus each run grows lives in BUILD_DIR/fuzz/corpus/TARGET; crashing
# inputs land in BUILD_DIR/fuzz/artifacts/ (copy them to
# tests/fuzz-regressions/TARGET/ once fixed). Exits 77 (skipped) when
# clang-14 or libFuzzer is missing, 1 when a target found a crash.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(frontend ir npy cache host)
cc=${FUZZ_CC:-clang-14}
cxx=${FUZZ_CXX:-clang++-14}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "skipped: $cxx not found (make deps installs clang-14)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' > "$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; then
  echo "skipped: $cxx cannot link libFuzzer (make deps installs libclang-rt-14-dev)"
  exit 77
fi

FUZZ_CC=$cc FUZZ_CXX=$cxx "$src/fuzz/configure.sh" "$build"
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "fuzz-$t"); done
cmake --build "$build" "${build_targets[@]}" --target fuzz-replay-frontend -j "${JOBS:-$(nproc)}"

# Seeds: every .tile program of the tree; the IR tests cut at `// -----`,
# and the IR sema produces for every seed program's kernels.
work="$build/fuzz"
seeds="$work/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/frontend" "$seeds/ir" "$seeds/npy" "$seeds/cache" "$seeds/host" "$work/artifacts"
n=0
while IFS= read -r f; do
  cp "$f" "$seeds/frontend/$((n++))-$(basename "$f")"
done < <(find "$src/dsl_examples" "$src/tests/gpu" "$src/tests/lit" "$src/tests/fuzz-regressions/frontend" \
           -name '*.tile' -o -path '*fuzz-regressions/frontend/*' -type f | sort)
while IFS= read -r f; do
  awk -v out="$seeds/ir/$((n++))-$(basename "$f" .tir)" \
    '/^\/\/ -----/ { k++; next } { print > (out "-" k+0 ".tir") }' "$f"
done < <(find "$src/tests/lit" "$src/tests/fuzz-regressions/ir" -name '*.tir' -o -path '*fuzz-regressions/ir/*' -type f | sort)
"$build/tests/fuzz-replay-frontend" --dump-ir "$seeds/ir" "$seeds/frontend" >/dev/null 2>&1 || true
cp "$src/tests/fuzz-regressions/npy/"* "$seeds/npy/"
cp "$src/tests/fuzz-regressions/cache/"* "$seeds/cache/"
# host: the programs whose main() runs (examples, GPU tests) and the host finds
cp "$src/dsl_examples/"*.tile "$src/tests/fuzz-regressions/host/"* "$seeds/host/"
for f in "$src/tests/gpu/"*.tile; do cp "$f" "$seeds/host/gpu-$(basename "$f")"; done
echo "seeds: $(ls "$seeds/frontend" | wc -l) programs, $(ls "$seeds/ir" | wc -l) IR files, $(ls "$seeds/npy" | wc -l) .npy files, $(ls "$seeds/cache" | wc -l) cache payloads, $(ls "$seeds/host" | wc -l) host programs"

status=0
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t"
  mkdir -p "$corpus"
  log="$work/$t.log"
  dict=(-dict="$src/fuzz/tile.dict")
  case $t in npy|cache) dict=() ;; esac   # binary formats: the .tile dictionary does not help
  echo "fuzzing $t for ${seconds}s (log: $log)"
  if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$build/bin/fuzz-$t" "$corpus" "$seeds/$t" \
       -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
       "${dict[@]}" -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1; then
    echo "  $t: $(grep -aEo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$') executions," \
         "$(ls "$corpus" | wc -l) corpus inputs, no crash"
  else
    status=1
    echo "  $t: FAILED; the end of the log:"
    tail -40 "$log"
    ls -1 "$work/artifacts/" | sed 's/^/  artifact: /'
  fi
done
exit $status
