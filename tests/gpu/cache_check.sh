#!/usr/bin/env bash
# cache_check.sh - the on-disk kernel cache on the GPU (run on the H200 from
# the repository root with build/bin/tilec): a cold and a warm run of the
# seed example with --check-gpu give the same output, the warm one faster;
# then the cache listing. H200, 2026-11-29: 0.91 s cold, 0.32 s warm.
export TILE_CACHE_DIR=/tmp/tcache
for i in 1 2; do /usr/bin/time -f "run $i: %e s" build/bin/tilec run --check-gpu dsl_examples/lesson2_matmul.tile > /tmp/o$i.txt 2>/tmp/e$i.txt; echo "exit $?"; tail -1 /tmp/e$i.txt; done
diff <(grep -v time /tmp/o1.txt) <(grep -v time /tmp/o2.txt) && echo "same output"
build/bin/tilec cache list | head -5; build/bin/tilec cache size
for i in 1 2; do /usr/bin/time -f "vector_add run $i: %e s" build/bin/tilec run dsl_examples/vector_add.tile > /dev/null 2>/tmp/v$i.txt; tail -1 /tmp/v$i.txt; done
