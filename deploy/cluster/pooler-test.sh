#!/usr/bin/env bash
# The concurrency tests behind PgBouncer in transaction pooling mode (the cluster's, up.sh): once
# with the order writer's pipelined connection straight to the leader (DATABASE_PIPELINE_URL), once
# with every order through the pooler (no pipeline). Each test database is made on the leader and
# reached through PgBouncer's `*` entry. Brings the cluster up first when it is not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
[ -e "$CLUSTER_DIR/run/up" ] || bash "$here/up.sh"
user=$([ "$(id -u)" = 0 ] && echo postgres || id -un)
export TEST_DATABASE_URL="postgres://$user@127.0.0.1:$DB_WRITE_PORT/postgres"
export TEST_POOLER_URL="postgres://$user@127.0.0.1:$PGBOUNCER_PORT/postgres"
tests=(test/checkout/concurrency.test.ts test/cards/concurrency.test.ts test/checkout/order-writer.test.ts)
cd "$repo"
echo "pooler: pipelined orders straight to the leader, everything else through PgBouncer" >&2
TEST_POOLER_PIPELINE=on npx vitest run "${tests[@]}"
echo "pooler: every order through PgBouncer (no pipelined connection)" >&2
TEST_POOLER_PIPELINE=off npx vitest run "${tests[@]}"
