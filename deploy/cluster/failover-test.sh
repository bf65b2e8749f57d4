#!/usr/bin/env bash
# npm run test:cluster: the failover test (deploy/cluster/failover.ts) on the local cluster, which
# it brings up first when it is not. Not part of npm test. Afterwards the node that was killed is
# started again and rejoins as a replica (Patroni rewinds it), so the test can run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
[ -e "$CLUSTER_DIR/run/up" ] || bash "$here/up.sh"
user=$([ "$(id -u)" = 0 ] && echo postgres || id -un)
export CLUSTER_DIR APP_FRONT_PORT CLUSTER_ADMIN_TOKEN
export PATRONI_PORT_LIST="${PATRONI_PORTS[*]}"
export LEADER_URL="postgres://$user@127.0.0.1:$DB_WRITE_PORT/punchcard"
cd "$repo"
status=0
npx tsx deploy/cluster/failover.ts || status=$?
# The killed node comes back as a replica of the new leader.
for i in 1 2; do
  pid_file="$CLUSTER_DIR/run/patroni$i.pid"
  if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "failover: starting pg$i again; it rejoins as a replica" >&2
    if [ "$(id -u)" = 0 ]; then
      setpriv --reuid=postgres --regid=postgres --init-groups -- nohup patroni "$CLUSTER_DIR/patroni$i.yml" \
        >>"$CLUSTER_DIR/log/patroni$i.log" 2>&1 &
    else
      nohup patroni "$CLUSTER_DIR/patroni$i.yml" >>"$CLUSTER_DIR/log/patroni$i.log" 2>&1 &
    fi
    sleep 1
    pgrep -f "patroni $CLUSTER_DIR/patroni$i.yml" >"$pid_file" || true
  fi
done
exit "$status"
