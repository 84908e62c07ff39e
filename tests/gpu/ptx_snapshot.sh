#!/bin/bash
# ptx_snapshot.sh TILEC SRCROOT OUTDIR [FILE...] - the PTX of every kernel
# specialization that the host programs of dsl_examples/ and tests/gpu/ (or
# the FILEs given) launch, for before/after comparisons of compiler changes.
# Each program runs once on the interpreter with a dump directory; the
# specialization keys of the dumped IR (`// kernel NAME [sig...,C=V...]`)
# are compiled again with `tilec compile --emit ptx`, on 4 warps, and on 8
# too for kernels with a dot. OUTDIR gets one FILE.KERNEL.N.wW.ptx per
# compile, index.txt (what each file is) and counts.txt (global loads and
# stores by kind, cp.async and wgmma per file).
#   tests/gpu/ptx_snapshot.sh build/bin/tilec . /tmp/before
set -u
TILEC=$(realpath "$1")
ROOT=$(realpath "$2")
OUT=$3
shift 3
mkdir -p "$OUT"
FILES=("$@")
if [ ${#FILES[@]} = 0 ]; then
  FILES=("$ROOT"/dsl_examples/*.tile "$ROOT"/tests/gpu/*.tile)
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: > "$OUT/index.txt"
for file in "${FILES[@]}"; do
  base=$(basename "$file" .tile)
  dump="$TMP/$base"
  mkdir -p "$dump"
  (cd "$ROOT" && TILE_NO_GPU=1 timeout 600 "$TILEC" run --interpret --dump-dir "$dump" "$file" > "$dump/run.log" 2>&1)
  # one line per distinct specialization: KERNEL|KEY|HASDOT
  for ir in "$dump"/*-ir-opt.tir; do
    [ -e "$ir" ] || continue
    head -1 "$ir" | sed -n 's/^\/\/ kernel \([A-Za-z0-9_]*\) \[\(.*\)\], stage ir-opt$/\1|\2/p' |
      tr '\n' '|'
    if grep -q "= dot " "$ir"; then echo "dot"; else echo "-"; fi
  done | sort -u > "$dump/keys.txt"
  n=0
  while IFS='|' read -r kernel key hasdot; do
    [ -z "$kernel" ] && continue
    sig=""
    defs=()
    IFS=',' read -ra items <<< "$key"
    for it in "${items[@]}"; do
      if [[ "$it" == *=* ]]; then defs+=(-D "$it"); else sig="${sig:+$sig,}$it"; fi
    done
    warps=(4)
    [ "$hasdot" = dot ] && warps=(4 8)
    for w in "${warps[@]}"; do
      n=$((n + 1))
      name="$base.$kernel.$n.w$w"
      if (cd "$ROOT" && "$TILEC" compile "$file" -k "$kernel" -s "$sig" "${defs[@]}" --num-warps "$w" \
          --emit ptx -o "$OUT/$name.ptx") 2> "$OUT/$name.err"; then
        rm -f "$OUT/$name.err"
      fi
      echo "$name.ptx | $kernel | $key | warps $w" >> "$OUT/index.txt"
    done
  done < "$dump/keys.txt"
done
# counts: per file, one column per kind of access
{
  echo "file ld.global.v4 ld.global.v2 ld.global.scalar st.global.v4 st.global.v2 st.global.scalar cp.async wgmma"
  for p in "$OUT"/*.ptx; do
    [ -e "$p" ] || continue
    c() { grep -cE "$1" "$p"; }
    echo "$(basename "$p") $(c 'ld\.global(\.[a-z]+)*\.v4') $(c 'ld\.global(\.[a-z]+)*\.v2') \
$(c 'ld\.global(\.[a-z]+)*\.(b|u|s|f)[0-9]+ ') $(c 'st\.global(\.[a-z]+)*\.v4') $(c 'st\.global(\.[a-z]+)*\.v2') \
$(c 'st\.global(\.[a-z]+)*\.(b|u|s|f)[0-9]+ ') $(c 'cp\.async\.c[ag]') $(c 'wgmma\.mma_async')"
  done
} > "$OUT/counts.txt"
echo "$(grep -c . "$OUT/index.txt") compiles, $(ls "$OUT"/*.err 2>/dev/null | wc -l) failed; see $OUT/counts.txt"
