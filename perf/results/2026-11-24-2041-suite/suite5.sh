#!/bin/bash
# issue 12's "done when" runs on the gateways-in-one-JVM default, one after another, from a fresh clone
cd /tmp/s5
run() { echo "=== $(date +%H:%M:%S) ./ckc $*"; ./ckc "$@" 2>&1; echo "=== $(date +%H:%M:%S) exit $?"; }
run demo
run perf handoff
run perf scenario1 --configs 7,8 --per-gateway --rate 12
run perf scenario1 --configs 8 --per-gateway --rate 4
run perf groupcast
run perf rebalance
run down
run up --gateways 3 --app-parallelism 3
run demo --nodes 5000 --gateways 3 --app-parallelism 3
run perf stepped
run perf overload
run down
