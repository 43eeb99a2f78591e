#!/bin/bash
# A/B: the gateways in one JVM with a Kafka producer each (A, main) against one producer shared by the three (B,
# CKC_SHARED_PRODUCER=true, shared-producer.patch), at configuration 8 with 15,000 MNs at 4/min (1,000 msg/s).
# usage: hosts-ab.sh OUT A B A B
cd /tmp/exp-prod
out=$1; shift; mkdir -p "$out"
for v in "$@"; do
  t=$(date +%H%M)
  echo "=== $v $t"
  ./ckc down >/dev/null 2>&1
  if [[ $v == B ]]; then export CKC_SHARED_PRODUCER=true; else unset CKC_SHARED_PRODUCER; fi
  ./ckc up --gateways 3 --app-parallelism 3 > "$out/up-$v-$t.log" 2>&1
  grep -h "warm\|echoes" "$out/up-$v-$t.log" | tail -2
  source .ckc/stack.env
  s=$(date -u +%Y-%m-%dT%H:%M:%S)
  (sleep 60; /tmp/runs/cpu.sh /tmp/exp-prod/.ckc/pids 120 > "$out/cpu-$v-$t.txt") &
  java -Xmx6g -XX:+UseZGC -jar perf/target/ckc-perf.jar run --config 8 --path ckc --gateways "$GATEWAY_ADDRESSES" \
    --app-parallelism 3 --nodes 15000 --rate 4 --messages 10 --results "$out/run-$v-$t" > "$out/run-$v-$t.log" 2>&1
  e=$(date -u +%Y-%m-%dT%H:%M:%S)
  wait
  grep RESULT "$out/run-$v-$t.log"
  for p in kafka flink-embedded gateway-1 gateway-2 gateway-3 gateway-host; do
    [[ -f .ckc/logs/$p-gc.log ]] || continue
    cat .ckc/logs/$p-gc.log* 2>/dev/null | awk -v s="[$s" -v e="[$e" -v p=$p '$1 >= s && $1 <= e && /Pause (Young|Mixed|Full)/ {gsub("ms","",$NF); n++; sum+=$NF; if ($NF+0>max) max=$NF+0} END {printf "%s pauses: %d, total %.1f ms, longest %.1f ms\n", p, n, sum, max}'
    cp .ckc/logs/$p-gc.log "$out/$p-gc-$v-$t.log" 2>/dev/null
  done
  tr '\n' ' ' < "$out/cpu-$v-$t.txt"; echo
  rm -f .ckc/logs/gateway-*-gc.log* .ckc/logs/gateway-host*
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
