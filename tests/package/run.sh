#!/usr/bin/env bash
# run.sh - installs the build into a temporary prefix, then configures,
# builds and runs tests/package (find_package(tile): tile::tile, tile::llvm) against it.
#   usage: run.sh CMAKE BUILD_DIR WORK_DIR GENERATOR
set -euo pipefail
cmake=$1 build=$2 work=$3 gen=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
"$cmake" --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
"$cmake" -S "$here" -B "$work/build" -G "$gen" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
"$cmake" --build "$work/build" > /dev/null
"$work/build/app"
"$work/build/app_gpu"
# nothing of OpenSSL, fmt or LLVM at run time either: all inside the archives
if ldd "$work/build/app" "$work/build/app_gpu" | grep -E "libcrypto|libssl|libfmt|libLLVM"; then
  echo "the package's programs load a library the archives should hold"
  exit 1
fi
