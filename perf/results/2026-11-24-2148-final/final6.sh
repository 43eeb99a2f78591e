#!/bin/bash
cd /tmp/ci-check
run() { echo "=== $(date +%H:%M:%S) ./ckc $*"; ./ckc "$@" 2>&1; echo "=== $(date +%H:%M:%S) exit $?"; }
run demo
run perf groupcast
run perf scenario1 --configs 8 --per-gateway --rate 4
run down
