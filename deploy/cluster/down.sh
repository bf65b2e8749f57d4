#!/usr/bin/env bash
# Stops everything up.sh started and removes CLUSTER_DIR (data directories included).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
[ -d "$CLUSTER_DIR" ] || {
  echo "cluster: nothing in $CLUSTER_DIR" >&2
  exit 0
}
stop() { # pid file
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  kill -9 "$pid" 2>/dev/null || true
}
for i in 1 2 3; do stop "$CLUSTER_DIR/run/app$i.pid"; done
stop "$CLUSTER_DIR/run/pgbouncer.pid"
stop "$CLUSTER_DIR/run/haproxy.pid"
for i in 1 2; do stop "$CLUSTER_DIR/run/patroni$i.pid"; done
# Patroni stops its PostgreSQL; one left behind by a kill -9 of Patroni is stopped here.
for i in 1 2; do
  if [ -f "$CLUSTER_DIR/pg$i/postmaster.pid" ]; then
    kill -9 "$(head -n 1 "$CLUSTER_DIR/pg$i/postmaster.pid")" 2>/dev/null || true
  fi
done
stop "$CLUSTER_DIR/run/etcd.pid"
# Whatever is left of the cluster (a process named after its folder) does not outlive it.
pkill -9 -f -- "$CLUSTER_DIR/" 2>/dev/null || true
rm -rf "$CLUSTER_DIR"
echo "cluster: down, $CLUSTER_DIR removed" >&2
