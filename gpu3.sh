R=$OUT; mkdir -p /tmp/o
BENCH_PARTS=sizes BENCH_DEADLINE_S=555 bash bench/gpu/run_h200.sh build /tmp/o > /tmp/o/bench-run.txt 2>&1
echo "bench exit $?"
tar czf $R/all.tgz -C /tmp o
cat /tmp/o/bench-times.txt; ls /tmp/o
