#!/bin/bash
cd "$1"; out="$2"; mkdir -p "$out"
for i in 1 2; do
  echo "=== $(date +%H:%M:%S) ./ckc perf groupcast (run $i)" >> "$out/run.log"
  ./ckc perf groupcast >> "$out/run.log" 2>&1
  echo "=== $(date +%H:%M:%S) exit $?" >> "$out/run.log"
done
