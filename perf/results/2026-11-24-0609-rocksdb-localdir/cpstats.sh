#!/bin/bash
# Per job and task: the sync phase (ms, on the task's thread) of each of the last 10 completed checkpoints.
F=${1:-http://127.0.0.1:8082}
for j in $(curl -s $F/jobs | jq -r '.jobs[] | select(.status=="RUNNING") | .id'); do
  name=$(curl -s $F/jobs/$j | jq -r .name)
  ids=$(curl -s $F/jobs/$j/checkpoints | jq -r '.history[] | select(.status=="COMPLETED") | .id')
  for v in $(curl -s $F/jobs/$j | jq -r '.vertices[].id'); do
    vn=$(curl -s $F/jobs/$j | jq -r --arg v $v '.vertices[] | select(.id==$v) | .name' | cut -c1-45)
    syncs=""
    for cp in $ids; do
      syncs+="$(curl -s $F/jobs/$j/checkpoints/details/$cp/subtasks/$v | jq -r '[.subtasks[].checkpoint.sync] | max') "
    done
    printf '%-28s %-46s sync ms: %s\n' "$name" "$vn" "$syncs"
  done
done
