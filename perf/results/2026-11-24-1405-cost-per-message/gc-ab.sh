#!/bin/bash
cd /tmp/exp
out=/tmp/runs/gc-ab; mkdir -p $out
for v in "$@"; do
  t=$(date +%H%M)
  echo "=== gateway GC $v $t"
  ./ckc down >/dev/null 2>&1
  if [[ $v == ZGC ]]; then opts="-XX:+UseZGC -Xlog:gc+phases=info:file=$out/zphases-%p.log:time,uptime"; else opts="-XX:+UseG1GC"; fi
  CKC_GATEWAY_GC="$opts" ./ckc up --gateways 3 --app-parallelism 3 > $out/up-$v-$t.log 2>&1
  (sleep 70; /tmp/runs/cpu.sh /tmp/exp/.ckc/pids 100 > $out/cpu-$v-$t.txt) &
  s=$(date -u +%Y-%m-%dT%H:%M:%S)
  ./ckc demo --nodes 5000 --gateways 3 --app-parallelism 3 --messages 45 2>&1 | grep RESULT
  e=$(date -u +%Y-%m-%dT%H:%M:%S)
  wait
  for g in 1 2 3; do
    f=.ckc/logs/gateway-$g-gc.log; [[ $v == ZGC ]] && f=$out/zphases-$(cat .ckc/pids/gateway-$g.pid).log
    cp $f $out/gateway-$g-pauses-$v-$t.log
  done
  for g in 1 2 3; do f=$out/gateway-$g-pauses-$v-$t.log; awk -v s="[$s" -v e="[$e" '$1 >= s && $1 <= e && /Pause/ {gsub("ms","",$NF); n++; sum+=$NF; if ($NF+0>max) max=$NF+0} END {printf "gateway-%s pauses during the demo: %d, total %.1f ms, longest %.1f ms\n", g, n, sum, max}' g=$g $f; done
  cat $out/cpu-$v-$t.txt | tr '\n' ' '; echo
done
./ckc down >/dev/null 2>&1
echo done $(date +%T)
