#!/bin/bash
# usage: cpu.sh PIDS_DIR SECONDS  -> mean CPU % of one core per ckc process and the demo simulator over SECONDS
dir=$1; secs=$2; hz=$(getconf CLK_TCK)
declare -A pid t0
for f in "$dir"/*.pid; do n=$(basename "$f" .pid); pid[$n]=$(cat "$f"); done
sim=$(pgrep -f "perf.*\.jar demo" | head -1); [[ -n "$sim" ]] && pid[simulator]=$sim
ticks() { awk '{print $14+$15}' /proc/$1/stat 2>/dev/null || echo 0; }
for n in "${!pid[@]}"; do t0[$n]=$(ticks ${pid[$n]}); done
idle0=$(awk '/^cpu /{print $5+$6}' /proc/stat)
sleep "$secs"
idle1=$(awk '/^cpu /{print $5+$6}' /proc/stat)
tot=0
for n in $(echo "${!pid[@]}" | tr ' ' '\n' | sort); do
  d=$(( $(ticks ${pid[$n]}) - ${t0[$n]} )); pc=$(awk -v d=$d -v s=$secs -v hz=$hz 'BEGIN{printf "%.1f", 100*d/hz/s}')
  echo "$n $pc"; tot=$(awk -v a=$tot -v b=$pc 'BEGIN{print a+b}')
done
echo "sum $tot"; awk -v d=$((idle1-idle0)) -v s=$secs -v hz=$hz 'BEGIN{printf "machine idle %.1f\n", 100*d/hz/s}'
