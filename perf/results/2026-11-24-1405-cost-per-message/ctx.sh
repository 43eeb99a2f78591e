#!/bin/bash
# ctx.sh PIDS_DIR SECONDS: context switches per second per process (all threads)
dir=$1; secs=$2
declare -A pid c0
for f in "$dir"/*.pid; do n=$(basename "$f" .pid); pid[$n]=$(cat "$f"); done
sim=$(pgrep -f "perf.*\.jar demo" | head -1); [[ -n "$sim" ]] && pid[simulator]=$sim
cs() { cat /proc/$1/task/*/status 2>/dev/null | awk '/ctxt_switches/{s+=$2} END{print s+0}'; }
for n in "${!pid[@]}"; do c0[$n]=$(cs ${pid[$n]}); done
sleep $secs
for n in $(echo "${!pid[@]}" | tr ' ' '\n' | sort); do echo "$n $(( ($(cs ${pid[$n]}) - ${c0[$n]}) / secs ))/s threads=$(ls /proc/${pid[$n]}/task | wc -l)"; done
