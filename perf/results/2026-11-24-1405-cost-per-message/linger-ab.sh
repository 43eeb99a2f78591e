#!/bin/bash
cd /tmp/exp
out=/tmp/runs/linger-ab; mkdir -p $out
for L in "$@"; do
  echo "=== linger $L $(date +%T)"
  ./ckc down >/dev/null 2>&1
  CKC_KAFKA_LINGER_MS=$L ./ckc up --gateways 3 --app-parallelism 3 > $out/up-$L-$(date +%H%M).log 2>&1
  (sleep 70; /tmp/runs/cpu.sh /tmp/exp/.ckc/pids 120 > $out/cpu-$L-$(date +%H%M).txt) &
  CKC_KAFKA_LINGER_MS=$L ./ckc demo --nodes 5000 --gateways 3 --app-parallelism 3 --messages 45 2>&1 | grep RESULT
  wait
  cat $out/cpu-$L-*.txt | tail -12
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
