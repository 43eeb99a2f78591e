#!/bin/bash
# issue 12's "done when" runs with the gateways of a machine in one JVM on one shared Kafka producer, one after
# another from a fresh clone, with profiles at configuration 8's load and at stepped's saturation.
# usage: suite6.sh CLONE OUT
cd "$1"; out="$2"; mkdir -p "$out"
run() { echo "=== $(date +%H:%M:%S) ./ckc $*"; ./ckc "$@" 2>&1; echo "=== $(date +%H:%M:%S) exit $?"; }
profile_during() { # NAME WAIT_S then the load's ckc arguments: JFR and perf over 30 s, then perf alone over 30 s
  local name=$1 wait=$2; shift 2
  echo "=== $(date +%H:%M:%S) ./ckc $* (profiled: $name)"
  ./ckc "$@" > "$out/$name-load.log" 2>&1 &
  local load=$!
  sleep "$wait"
  ./ckc profile 30 "$out/$name" > "$out/$name-profile.log" 2>&1
  sleep 5
  ./ckc profile 30 "$out/$name-native" --no-jfr > "$out/$name-native-profile.log" 2>&1
  wait $load
  grep RESULT "$out/$name-load.log"
  echo "=== $(date +%H:%M:%S) profiled $name"
}
run demo
run perf handoff
run perf scenario1 --configs 7,8 --per-gateway --rate 12
run perf scenario1 --configs 8 --per-gateway --rate 4
run perf groupcast
run perf rebalance
run down
run up --gateways 3 --app-parallelism 3
run demo --nodes 5000 --gateways 3 --app-parallelism 3
mkdir -p "$out/profile-config8"
profile_during profile-config8 60 demo --nodes 5000 --gateways 3 --app-parallelism 3 --messages 12
run perf stepped
sat=$(ls -d perf/results/*-stepped | tail -1 | xargs -I{} cat {}/tables.txt | grep -o "ckc saturates at step [0-9]*: [0-9]*" | awk '{print $NF}')
sat=${sat:-7000}
echo "=== stepped saturation $sat msg/s: profiling one gateway at it"
run up
mkdir -p "$out/profile-stepped-$sat"
profile_during "profile-stepped-$sat" 40 demo --nodes 2000 --rate $((sat * 60 / 2000)) --messages $((sat * 60 / 2000 * 3))
run perf overload
run perf capacity
run down
echo "=== $(date +%H:%M:%S) suite done"
