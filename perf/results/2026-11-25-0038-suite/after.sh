#!/bin/bash
# after suite6: configuration 8's load profiled (15,000 MNs at 4/min on 3 gateways, 180 s of load), then all eight
cd /tmp/final; out=/tmp/final-out/suite
until [ $(wc -l < /tmp/final-out/chain.log) -ge 4 ]; do sleep 10; done
echo "=== $(date +%T) ./ckc up --gateways 3 --app-parallelism 3"; ./ckc up --gateways 3 --app-parallelism 3 2>&1 | tail -3
echo "=== $(date +%T) ./ckc demo --nodes 15000 --gateways 3 --app-parallelism 3 --rate 4 --messages 12 (profiled)"
./ckc demo --nodes 15000 --gateways 3 --app-parallelism 3 --rate 4 --messages 12 > $out/profile-config8-15000-load.log 2>&1 &
load=$!
until grep -q "sending\|Sending\|sent " $out/profile-config8-15000-load.log 2>/dev/null; do sleep 1; done
sleep 45
./ckc profile 30 $out/profile-config8-15000 > $out/profile-config8-15000-profile.log 2>&1
sleep 5
./ckc profile 30 $out/profile-config8-15000-native --no-jfr > $out/profile-config8-15000-native-profile.log 2>&1
wait $load; grep RESULT $out/profile-config8-15000-load.log
echo "=== $(date +%T) ./ckc perf scenario1"; ./ckc perf scenario1 2>&1; echo "=== $(date +%T) exit $?"; ./ckc down
