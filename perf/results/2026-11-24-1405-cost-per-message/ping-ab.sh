#!/bin/bash
cd /tmp/exp
while pgrep -f broker-ab.sh >/dev/null; do sleep 5; done
out=/tmp/runs/ping-ab; mkdir -p $out
for v in "$@"; do
  t=$(date +%H%M)
  echo "=== ping sample $v $t"
  ./ckc down >/dev/null 2>&1
  CKC_PING_SAMPLE=$v ./ckc up --gateways 3 --app-parallelism 3 > $out/up-$v-$t.log 2>&1
  (sleep 70; /tmp/runs/cpu.sh /tmp/exp/.ckc/pids 100 > $out/cpu-$v-$t.txt) &
  (sleep 72; /tmp/runs/ctx.sh /tmp/exp/.ckc/pids 60 > $out/ctx-$v-$t.txt) &
  ./ckc demo --nodes 5000 --gateways 3 --app-parallelism 3 --messages 45 2>&1 | grep RESULT
  wait
  curl -s http://127.0.0.1:9400/metrics | grep -E "^ckc_gateway_ping_round_trip_seconds_count|^ckc_gateway_messages_in_total"
  paste $out/cpu-$v-$t.txt $out/ctx-$v-$t.txt
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
