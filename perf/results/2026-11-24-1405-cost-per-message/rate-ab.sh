#!/bin/bash
cd /tmp/exp
while pgrep -f ping-ab.sh >/dev/null; do sleep 5; done
out=/tmp/runs/rate-ab; mkdir -p $out
./ckc down >/dev/null 2>&1
./ckc up --gateways 3 --app-parallelism 3 > $out/up.log 2>&1
for r in "$@"; do
  t=$(date +%H%M)
  echo "=== rate $r/min per node, 5000 nodes $t"
  (sleep 70; /tmp/runs/cpu.sh /tmp/exp/.ckc/pids 60 > $out/cpu-$r-$t.txt) &
  (sleep 72; /tmp/runs/ctx.sh /tmp/exp/.ckc/pids 40 > $out/ctx-$r-$t.txt) &
  ./ckc demo --nodes 5000 --gateways 3 --app-parallelism 3 --rate $r --messages $((r*3)) 2>&1 | grep RESULT
  wait
  paste $out/cpu-$r-$t.txt $out/ctx-$r-$t.txt
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
