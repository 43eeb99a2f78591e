#!/bin/bash
# A/B: groupcast expansion before (A, a20d948) and after (B, 2a1fb17) storing the members once as steps,
# 25,000 members on 3 gateways. usage: steps-ab.sh OUT A B A B
out=$1; shift; mkdir -p "$out"
for v in "$@"; do
  (cd /tmp/expA && ./ckc down >/dev/null 2>&1); (cd /tmp/expB && ./ckc down >/dev/null 2>&1)
  t=$(date +%H%M)
  echo "=== $v $t" | tee -a "$out/ab.log"
  cd /tmp/exp$v
  ./ckc perf groupcast --members 25000 --warm-ups 3 --timed 3 > "$out/run-$v-$t.log" 2>&1
  echo "exit $?" >> "$out/run-$v-$t.log"
  grep -E "Warm-up groupcast|Timed groupcast|RESULT" "$out/run-$v-$t.log" | tee -a "$out/ab.log"
done
(cd /tmp/expA && ./ckc down >/dev/null 2>&1); (cd /tmp/expB && ./ckc down >/dev/null 2>&1)
echo "done $(date +%T)" >> "$out/ab.log"
