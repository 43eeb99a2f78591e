#!/bin/bash
# A/B at configuration 8, 15,000 MNs at 4/min (1,000 msg/s): the gateways in one JVM with a Kafka producer each
# (A: main at 72b6e9c, clone /tmp/ab-A) against one producer shared by the host (B: main at 1f025c1, /tmp/ab-B).
# usage: producer-ab2.sh OUT A B A B
out=$1; shift; mkdir -p "$out"
for v in "$@"; do
  cd /tmp/ab-$v
  t=$(date +%H%M)
  echo "=== $v $t"
  ./ckc down >/dev/null 2>&1
  ./ckc up --gateways 3 --app-parallelism 3 > "$out/up-$v-$t.log" 2>&1
  grep -h "warm\|echoes" "$out/up-$v-$t.log" | tail -2
  source .ckc/stack.env
  s=$(date -u +%Y-%m-%dT%H:%M:%S)
  (sleep 60; /tmp/runs/cpu.sh /tmp/ab-$v/.ckc/pids 120 > "$out/cpu-$v-$t.txt") &
  java -Xmx6g -XX:+UseZGC -jar perf/target/ckc-perf.jar run --config 8 --path ckc --gateways "$GATEWAY_ADDRESSES" \
    --app-parallelism 3 --nodes 15000 --rate 4 --messages 10 --results "$out/run-$v-$t" > "$out/run-$v-$t.log" 2>&1
  e=$(date -u +%Y-%m-%dT%H:%M:%S)
  wait
  grep RESULT "$out/run-$v-$t.log"
  for p in kafka flink-embedded gateways; do
    [[ -f .ckc/logs/$p-gc.log ]] || continue
    cat .ckc/logs/$p-gc.log* 2>/dev/null | awk -v s="[$s" -v e="[$e" -v p=$p '$1 >= s && $1 <= e && /Pause (Young|Mixed|Full)/ {gsub("ms","",$NF); n++; sum+=$NF; if ($NF+0>max) max=$NF+0} END {printf "%s pauses: %d, total %.1f ms, longest %.1f ms\n", p, n, sum, max}'
  done
  grep -c "kafka-producer-network-thread" /dev/null >/dev/null
  tr '\n' ' ' < "$out/cpu-$v-$t.txt"; echo
  ./ckc down >/dev/null 2>&1
done
echo done $(date +%T)
