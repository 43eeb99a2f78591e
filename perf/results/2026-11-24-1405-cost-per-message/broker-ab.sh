#!/bin/bash
cd /tmp/exp
out=/tmp/runs/broker-ab; mkdir -p $out
for v in "$@"; do
  if [[ $v == B ]]; then extra='num.network.threads=1\nnum.io.threads=2'; else extra=''; fi
  t=$(date +%H%M)
  echo "=== $v $t"
  ./ckc down >/dev/null 2>&1
  CKC_KAFKA_EXTRA="$extra" ./ckc up --gateways 3 --app-parallelism 3 > $out/up-$v-$t.log 2>&1
  grep -c "threads" .ckc/kafka/server.properties
  (sleep 70; /tmp/runs/cpu.sh /tmp/exp/.ckc/pids 100 > $out/cpu-$v-$t.txt) &
  (sleep 72; /tmp/runs/ctx.sh /tmp/exp/.ckc/pids 60 > $out/ctx-$v-$t.txt) &
  ./ckc demo --nodes 5000 --gateways 3 --app-parallelism 3 --messages 45 2>&1 | grep RESULT
  wait
  paste $out/cpu-$v-$t.txt $out/ctx-$v-$t.txt
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
