#!/bin/bash
cd "$1"; out="$2"
./ckc down >/dev/null 2>&1
echo "=== $(date +%H:%M:%S) ./ckc down; ./ckc perf groupcast (run 3, from a stopped stack)" >> "$out/run.log"
./ckc perf groupcast >> "$out/run.log" 2>&1
echo "=== $(date +%H:%M:%S) exit $?" >> "$out/run.log"
