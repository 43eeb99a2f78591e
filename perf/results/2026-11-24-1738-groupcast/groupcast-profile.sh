#!/bin/bash
# ./ckc perf groupcast --timed 20 with ./ckc profile over its timed groupcasts
cd "$1"; out="$2"; mkdir -p "$out"
./ckc perf groupcast --timed 20 > "$out/run.log" 2>&1 &
until grep -q "Warm-up groupcast" "$out/run.log"; do sleep 1; done
./ckc profile 40 "$out/profile" --no-jfr > "$out/profile.log" 2>&1
wait
