#!/bin/bash
# after after.sh: one gateway at stepped's last good level (7,000 msg/s) profiled by Linux perf alone (no JFR, which disturbs)
cd /tmp/final; out=/tmp/final-out/suite
until grep -q "perf scenario1" /tmp/final-out/after.log && ! pgrep -f after.sh >/dev/null; do sleep 10; done
echo "=== $(date +%T) ./ckc up"; ./ckc up 2>&1 | tail -2
./ckc demo --nodes 2000 --rate 210 --messages 420 > $out/profile-stepped-7000-load.log 2>&1 &
load=$!
until grep -q "sending" $out/profile-stepped-7000-load.log 2>/dev/null; do sleep 1; done
sleep 30
./ckc profile 30 $out/profile-stepped-7000-native --no-jfr > $out/profile-stepped-7000-native-profile.log 2>&1
wait $load; grep RESULT $out/profile-stepped-7000-load.log
./ckc down; echo "=== $(date +%T) done"
