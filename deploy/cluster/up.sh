#!/usr/bin/env bash
# A local PostgreSQL cluster with Punchcard on it, on this one machine, from Debian's packages:
#   etcd -> two PostgreSQL 15 nodes managed by Patroni (synchronous replication: a commit is
#   acknowledged once it is on both) -> HAProxy (writes to the leader by Patroni's REST check,
#   reads to a replica) -> PgBouncer (transaction pooling) -> three Punchcard instances behind a
#   second HAProxy frontend. Every port and data directory is under CLUSTER_DIR (env.sh).
# down.sh stops and removes it all. Packages missing are installed with apt-get (as root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=env.sh
. "$here/env.sh"

say() { printf 'cluster: %s\n' "$*" >&2; }
fail() {
  printf 'cluster: FAIL: %s\n' "$*" >&2
  exit 1
}

# --- packages -------------------------------------------------------------------------------
missing=()
command -v patroni >/dev/null || missing+=(patroni)
command -v etcd >/dev/null || missing+=(etcd-server)
command -v pgbouncer >/dev/null || missing+=(pgbouncer)
command -v haproxy >/dev/null || missing+=(haproxy)
[ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  PG_BIN=$(ls -d /usr/lib/postgresql/15/bin)
fi

# PostgreSQL and PgBouncer refuse to run as root: as root, they run as the postgres user.
if [ "$(id -u)" = 0 ]; then
  # setpriv runs the program itself (no parent left between): its pid is the program's.
  run_as_db() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
  db_user=postgres
else
  run_as_db() { "$@"; }
  db_user=$(id -un)
fi

[ -e "$CLUSTER_DIR/run/up" ] && fail "a cluster is already up in $CLUSTER_DIR (down.sh first)"
mkdir -p "$CLUSTER_DIR"/{etcd,log,run}
chown "$db_user" "$CLUSTER_DIR" "$CLUSTER_DIR/log" "$CLUSTER_DIR/run"
chmod 0755 "$CLUSTER_DIR"

wait_for() { # what, seconds, command...
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  fail "$what did not come up within ${seconds}s (logs in $CLUSTER_DIR/log)"
}

# --- etcd -------------------------------------------------------------------------------------
say "etcd on 127.0.0.1:$ETCD_CLIENT_PORT"
nohup etcd --name punchcard-etcd --data-dir "$CLUSTER_DIR/etcd" --enable-v2=true \
  --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "punchcard-etcd=http://127.0.0.1:$ETCD_PEER_PORT" \
  >"$CLUSTER_DIR/log/etcd.log" 2>&1 &
echo $! >"$CLUSTER_DIR/run/etcd.pid"
wait_for etcd 30 curl -fsS "http://127.0.0.1:$ETCD_CLIENT_PORT/health"

# --- PostgreSQL under Patroni ------------------------------------------------------------------
for i in 1 2; do
  pg_port=${PG_PORTS[$((i - 1))]}
  rest_port=${PATRONI_PORTS[$((i - 1))]}
  mkdir -p "$CLUSTER_DIR/pg$i"
  chown "$db_user" "$CLUSTER_DIR/pg$i"
  chmod 0700 "$CLUSTER_DIR/pg$i"
  cat >"$CLUSTER_DIR/patroni$i.yml" <<YAML
scope: punchcard
name: pg$i
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port
etcd:
  host: 127.0.0.1:$ETCD_CLIENT_PORT
bootstrap:
  dcs:
    # A dead leader's key expires after ttl seconds; then the replica takes over.
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    # Synchronous replication: a commit is acknowledged once the synchronous standby has it, so
    # the replica that is promoted holds every acknowledged write.
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        max_connections: 300
        max_wal_senders: 10
        max_replication_slots: 10
        wal_log_hints: "on"
        synchronous_commit: "on"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $CLUSTER_DIR/pg$i
  bin_dir: $PG_BIN
  pgpass: $CLUSTER_DIR/run/pgpass$i
  authentication:
    superuser: {username: $db_user, password: cluster-local}
    replication: {username: $db_user, password: cluster-local}
    rewind: {username: $db_user, password: cluster-local}
  parameters:
    unix_socket_directories: $CLUSTER_DIR/run
tags:
  nofailover: false
  noloadbalance: false
YAML
  chown "$db_user" "$CLUSTER_DIR/patroni$i.yml"
  say "PostgreSQL node pg$i on 127.0.0.1:$pg_port (Patroni REST on $rest_port)"
  run_as_db nohup patroni "$CLUSTER_DIR/patroni$i.yml" >"$CLUSTER_DIR/log/patroni$i.log" 2>&1 &
  # The pid of Patroni itself (the failover test kills it), not of the shell that started it.
  wait_for "Patroni pg$i" 30 pgrep -f "patroni $CLUSTER_DIR/patroni$i.yml"
  pgrep -f "patroni $CLUSTER_DIR/patroni$i.yml" >"$CLUSTER_DIR/run/patroni$i.pid"
  if [ "$i" = 1 ]; then
    wait_for "the first PostgreSQL node (leader)" 90 curl -fsS "http://127.0.0.1:$rest_port/primary"
  else
    wait_for "the second PostgreSQL node (synchronous replica)" 120 curl -fsS "http://127.0.0.1:$rest_port/sync"
  fi
done

# --- HAProxy ----------------------------------------------------------------------------------
servers() { # check path
  for i in 1 2; do
    printf '  server pg%s 127.0.0.1:%s check port %s\n' "$i" "${PG_PORTS[$((i - 1))]}" "${PATRONI_PORTS[$((i - 1))]}"
  done
}
apps() {
  for i in 1 2 3; do
    printf '  server app%s 127.0.0.1:%s check\n' "$i" "${APP_PORTS[$((i - 1))]}"
  done
}
cat >"$CLUSTER_DIR/haproxy.cfg" <<CFG
global
  maxconn 4000
  pidfile $CLUSTER_DIR/run/haproxy.pid
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
# Writes: the node whose Patroni says it is the leader (GET /primary answers 200 there only).
listen postgres_write
  bind 127.0.0.1:$DB_WRITE_PORT
  option httpchk
  http-check send meth GET uri /primary
  http-check expect status 200
$(servers)
# Reads: a running replica; the leader while no replica is up.
frontend postgres_read
  bind 127.0.0.1:$DB_READ_PORT
  use_backend postgres_replicas if { nbsrv(postgres_replicas) gt 0 }
  default_backend postgres_leader
backend postgres_replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /replica
  http-check expect status 200
$(servers)
backend postgres_leader
  option httpchk
  http-check send meth GET uri /primary
  http-check expect status 200
$(servers)
# The Punchcard instances, by their readiness probe.
frontend punchcard
  mode http
  bind 127.0.0.1:$APP_FRONT_PORT
  timeout client 60s
  default_backend punchcard_instances
backend punchcard_instances
  mode http
  timeout server 60s
  balance roundrobin
  option httpchk
  http-check send meth GET uri /healthz
  http-check expect status 200
$(apps)
listen stats
  mode http
  bind 127.0.0.1:$HAPROXY_STATS_PORT
  stats enable
  stats uri /
CFG
say "HAProxy: writes on $DB_WRITE_PORT, reads on $DB_READ_PORT, Punchcard on $APP_FRONT_PORT (stats on $HAPROXY_STATS_PORT)"
haproxy -D -f "$CLUSTER_DIR/haproxy.cfg" >"$CLUSTER_DIR/log/haproxy.log" 2>&1
psql_write() { "$PG_BIN/psql" -qtA -h 127.0.0.1 -p "$DB_WRITE_PORT" -U "$db_user" "$@"; }
# HAProxy counts every server up until its checks say otherwise (two failed checks, some 2 s after
# its start; "UP 1/2" after the first): until then the write port may lead to the replica, which
# refuses writes. Its statistics say when exactly one node is up behind the write port.
one_writer() {
  [ "$(curl -fsS "http://127.0.0.1:$HAPROXY_STATS_PORT/;csv" |
    awk -F, '$1 == "postgres_write" && $2 != "FRONTEND" && $2 != "BACKEND" && $18 ~ /^UP/' | wc -l)" = 1 ]
}
wait_for "one node behind HAProxy's write port" 30 one_writer
wait_for "the leader through HAProxy" 30 psql_write -d postgres -c 'SELECT 1'
[ "$(psql_write -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'punchcard'")" = 1 ] ||
  psql_write -d postgres -c 'CREATE DATABASE punchcard'
# The session settings the instances cannot set themselves behind PgBouncer (docs/scaling.md, "PgBouncer"):
# the statement limit, and no JIT compilation.
psql_write -d postgres -c "ALTER DATABASE punchcard SET statement_timeout = '30s'"
psql_write -d postgres -c "ALTER DATABASE punchcard SET jit = off"

# --- PgBouncer --------------------------------------------------------------------------------
printf '"%s" ""\n' "$db_user" >"$CLUSTER_DIR/pgbouncer-users.txt"
cat >"$CLUSTER_DIR/pgbouncer.ini" <<INI
[databases]
punchcard = host=127.0.0.1 port=$DB_WRITE_PORT dbname=punchcard
punchcard_read = host=127.0.0.1 port=$DB_READ_PORT dbname=punchcard
; Any other name reaches the database of that name on the leader (the tests' databases).
* = host=127.0.0.1 port=$DB_WRITE_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir = $CLUSTER_DIR/run
auth_type = trust
auth_file = $CLUSTER_DIR/pgbouncer-users.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 40
server_reset_query =
server_check_delay = 0
server_connect_timeout = 3
server_login_retry = 1
ignore_startup_parameters = extra_float_digits,options
logfile = $CLUSTER_DIR/log/pgbouncer.log
pidfile = $CLUSTER_DIR/run/pgbouncer.pid
INI
chown "$db_user" "$CLUSTER_DIR/pgbouncer.ini" "$CLUSTER_DIR/pgbouncer-users.txt"
say "PgBouncer (transaction pooling) on $PGBOUNCER_PORT"
run_as_db pgbouncer -d "$CLUSTER_DIR/pgbouncer.ini"
wait_for PgBouncer 30 "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PGBOUNCER_PORT"

# --- Punchcard ---------------------------------------------------------------------------------
# Compiles only when src/ is newer than the build (as npm start does).
(cd "$repo" && node scripts/build.mjs >&2)
db_url="postgres://$db_user@127.0.0.1:$PGBOUNCER_PORT/punchcard"
read_url="postgres://$db_user@127.0.0.1:$PGBOUNCER_PORT/punchcard_read"
# The order writer's one pipelined connection per instance goes past PgBouncer to the leader.
pipeline_url="postgres://$db_user@127.0.0.1:$DB_WRITE_PORT/punchcard"
for i in 1 2 3; do
  port=${APP_PORTS[$((i - 1))]}
  say "Punchcard instance $i on $port"
  (
    cd "$repo"
    PORT=$port DATABASE_URL=$db_url DATABASE_READ_URL=$read_url DATABASE_POOLER=transaction \
      DATABASE_PIPELINE_URL=$pipeline_url \
      ADMIN_TOKEN=$CLUSTER_ADMIN_TOKEN DATA_DIR="$CLUSTER_DIR/app$i" NODE_ENV=production \
      WEBHOOK_ALLOW_PRIVATE=true nohup node dist/server.js >"$CLUSTER_DIR/log/app$i.log" 2>&1 &
    echo $! >"$CLUSTER_DIR/run/app$i.pid"
  )
  # The first instance migrates the database; the others start after it.
  wait_for "Punchcard instance $i" 180 curl -fsS "http://127.0.0.1:$port/readyz"
done
wait_for "HAProxy's Punchcard frontend" 30 curl -fsS "http://127.0.0.1:$APP_FRONT_PORT/readyz"
touch "$CLUSTER_DIR/run/up"
say "up: Punchcard at http://127.0.0.1:$APP_FRONT_PORT (operator token in CLUSTER_ADMIN_TOKEN), database $db_url"
