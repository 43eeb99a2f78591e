#!/bin/bash
# A/B: G1 as main runs it (A) against a 20 ms pause goal on Kafka (Kafka's own kafka-run-class.sh G1 settings)
# and Flink (B), at configuration 8's shape and 250 msg/s. usage: gcgoal-ab.sh OUT A B A B
cd /tmp/exp2
out=$1; shift; mkdir -p "$out"
for v in "$@"; do
  t=$(date +%H%M)
  echo "=== $v $t"
  ./ckc down >/dev/null 2>&1
  if [[ $v == B ]]; then
    export CKC_KAFKA_GC="-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent"
    export CKC_FLINK_GC="-XX:+UseG1GC -XX:MaxGCPauseMillis=20"
  else
    unset CKC_KAFKA_GC CKC_FLINK_GC
  fi
  ./ckc up --gateways 3 --app-parallelism 3 > "$out/up-$v-$t.log" 2>&1
  source .ckc/stack.env
  s=$(date -u +%Y-%m-%dT%H:%M:%S)
  (sleep 90; /tmp/runs/cpu.sh /tmp/exp2/.ckc/pids 120 > "$out/cpu-$v-$t.txt") &
  java -Xmx6g -XX:+UseZGC -jar perf/target/ckc-perf.jar run --config 8 --path ckc --gateways "$GATEWAY_ADDRESSES" \
    --app-parallelism 3 --nodes 5000 --rate 3 --messages 12 --results "$out/run-$v-$t" > "$out/run-$v-$t.log" 2>&1
  e=$(date -u +%Y-%m-%dT%H:%M:%S)
  wait
  grep RESULT "$out/run-$v-$t.log"
  for p in kafka flink-embedded gateway-1 gateway-2 gateway-3; do
    cat .ckc/logs/$p-gc.log* 2>/dev/null | awk -v s="[$s" -v e="[$e" -v p=$p '$1 >= s && $1 <= e && /Pause (Young|Mixed|Full)/ {gsub("ms","",$NF); n++; sum+=$NF; if ($NF+0>max) max=$NF+0} END {printf "%s pauses: %d, total %.1f ms, longest %.1f ms\n", p, n, sum, max}'
    cp .ckc/logs/$p-gc.log "$out/$p-gc-$v-$t.log" 2>/dev/null
  done
  tr '\n' ' ' < "$out/cpu-$v-$t.txt"; echo
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
