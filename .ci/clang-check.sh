#!/usr/bin/env bash
# clang-check.sh - every C++ translation unit of a configured build, parsed
# and type-checked by clang++-14 (-fsyntax-only: no objects, no link), so
# the project keeps building with clang as well as gcc (issue 21: libFuzzer
# needs clang). Uses the build's compile_commands.json.
#   usage: .ci/clang-check.sh BUILD_DIR   (after `make build`)
set -euo pipefail
build=${1:-build}
clang=${CLANGXX:-clang++-14}
command -v "$clang" >/dev/null || { echo "clang-check: $clang not found (make deps installs it)"; exit 1; }
python3 - "$build/compile_commands.json" "$clang" > "$build/clang-check.cmds" <<'PY'
import json, shlex, sys
cmds, clang = json.load(open(sys.argv[1])), sys.argv[2]
for c in cmds:
    if "/fuzz/" in c["file"]:   # the fuzz targets are built by clang already (fuzz/run.sh)
        continue
    args = shlex.split(c["command"])
    out, i = [clang, "-fsyntax-only", "-Wno-unknown-warning-option"], 1
    while i < len(args):
        a = args[i]
        if a in ("-o", "-MF", "-MT"):
            i += 2
            continue
        if a in ("-c", "-MD"):
            i += 1
            continue
        out.append(a)
        i += 1
    print("cd " + shlex.quote(c["directory"]) + " && " + shlex.join(out))
PY
n=$(wc -l < "$build/clang-check.cmds")
fails=0
while IFS= read -r cmd; do
  printf '%s\0' "$cmd"
done < "$build/clang-check.cmds" | xargs -0 -P "$(nproc)" -I{} sh -c 'out=$({ {}; } 2>&1) || { printf "%s\n" "$out"; exit 255; }' || fails=1
if [ $fails = 0 ]; then echo "clang-check: $n translation units parse with $clang"; else echo "clang-check: FAILED"; exit 1; fi
