#!/bin/bash
# ./ckc perf groupcast, then when each hop wrote the groupcast's records (Kafka record timestamps)
cd "$1"; out="$2"; mkdir -p "$out"
./ckc perf groupcast > "$out/run.log" 2>&1
CP=$(ls .ckc/lib/kafka/*.jar | tr '\n' ':')
java -cp "$CP" /tmp/runs/TopicTimes.java 90000 ckc.groupcast ckc.gw.gw-1 ckc.gw.gw-2 ckc.gw.gw-3 > "$out/topic-times.txt" 2>&1
date >> "$out/topic-times.txt"
