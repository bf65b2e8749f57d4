# The local cluster's folder and ports, shared by up.sh, down.sh and the failover test. Every port
# and data directory lives under CLUSTER_DIR; change a port here (or in the environment) if it is
# taken on your machine.
CLUSTER_DIR=${CLUSTER_DIR:-/tmp/punchcard-cluster}
ETCD_CLIENT_PORT=${ETCD_CLIENT_PORT:-23790}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-23800}
PG_PORTS=(${PG1_PORT:-5441} ${PG2_PORT:-5442})
PATRONI_PORTS=(${PATRONI1_PORT:-8441} ${PATRONI2_PORT:-8442})
# HAProxy in front of PostgreSQL: writes to the leader, reads to a replica (the leader when none).
DB_WRITE_PORT=${DB_WRITE_PORT:-5440}
DB_READ_PORT=${DB_READ_PORT:-5439}
# PgBouncer in front of HAProxy, transaction pooling.
PGBOUNCER_PORT=${PGBOUNCER_PORT:-6440}
# Punchcard instances and the HAProxy frontend before them.
APP_PORTS=(${APP1_PORT:-8091} ${APP2_PORT:-8092} ${APP3_PORT:-8093})
APP_FRONT_PORT=${APP_FRONT_PORT:-8090}
HAPROXY_STATS_PORT=${HAPROXY_STATS_PORT:-8099}
CLUSTER_ADMIN_TOKEN=${CLUSTER_ADMIN_TOKEN:-cluster-operator-token-change-me}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | tail -n 1)}
