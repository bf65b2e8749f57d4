/**
 * The failover test of the local cluster (npm run test:cluster; deploy/cluster/failover-test.sh
 * brings the cluster up first): tills and a checkout client keep a steady load on the three
 * instances (basket uploads and grants, card withdrawals, orders paid from the balance), the
 * PostgreSQL leader dies by kill -9 (its Patroni too, as when its machine goes), Patroni promotes
 * the synchronous replica, and the load goes on. Every request is repeated with its own
 * transactionId, basketId or Idempotency-Key until it is answered (as a till or a shop does after a
 * 503 or a lost connection). Afterwards, on the new leader: every acknowledged write is there,
 * nothing is booked twice, the balances are exactly what the acknowledged requests say, the ledger
 * verifies and the outbox delivers again. Prints the seconds of refused requests and the figures;
 * exits 1 when a check fails.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  type HttpAnswer,
  HttpClient,
  type PosIdentity,
  setupTerminalHttp,
} from '../../test/support/http-pos.js';
import {
  type CheckoutIdentity,
  coffeeOrder,
  fundedProfile,
  setupCheckoutHttp,
  signedOrder,
} from '../../test/support/http-checkout.js';
import { Receiver } from '../../test/support/webhook-receiver.js';

const need = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run deploy/cluster/failover-test.sh)`);
  return v;
};
const CLUSTER_DIR = need('CLUSTER_DIR');
const FRONT = `http://127.0.0.1:${need('APP_FRONT_PORT')}`;
const ADMIN = need('CLUSTER_ADMIN_TOKEN');
const LEADER_URL = need('LEADER_URL');
const PATRONI = need('PATRONI_PORT_LIST').split(' ');
const WORKERS = Number(process.env.FAILOVER_WORKERS ?? 24);
const BEFORE_MS = Number(process.env.FAILOVER_BEFORE_SEC ?? 15) * 1000;
const AFTER_MS = Number(process.env.FAILOVER_AFTER_SEC ?? 30) * 1000;
/** How long one request is repeated before the test gives up on it (and fails). */
const GIVE_UP_MS = 120_000;

const log = (text: string) => process.stderr.write(`failover: ${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'basket' | 'withdrawal' | 'order';
interface Done {
  kind: Kind;
  id: string;
  ackAtMs: number;
  attempts: number;
  /** The amount it moved (withdrawals and orders, in cents). */
  minor: number;
}
const done: Done[] = [];
/** Times of attempts that were refused or lost (anything but an answer to keep). */
const refusedAtMs: number[] = [];
const refusalsByStatus = new Map<string, number>();
let stopping = false;

/**
 * Repeats `send` until it answers a status `final` accepts; a 503, a 5xx from the proxy or a lost
 * connection is repeated after 200 ms. Answers the number of attempts.
 */
async function untilAnswered(
  send: () => Promise<HttpAnswer>,
  final: (a: HttpAnswer) => boolean,
): Promise<number> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    let status = 'lost';
    try {
      const a = await send();
      if (final(a)) return attempt;
      status = String(a.status);
      if (a.status < 500 && a.status !== 429)
        throw new Error(`refused for good: HTTP ${a.status} ${JSON.stringify(a.body)}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('refused for good')) throw err;
    }
    refusedAtMs.push(Date.now());
    refusalsByStatus.set(status, (refusalsByStatus.get(status) ?? 0) + 1);
    if (Date.now() - started > GIVE_UP_MS)
      throw new Error(`no answer within ${GIVE_UP_MS} ms (last: ${status})`);
    await sleep(200);
  }
}

function basketBody(n: number): Record<string, unknown> {
  return {
    Timestamp: new Date().toISOString().replace('Z', '+00:00'),
    HasDiscounts: false,
    CurrencyISO: 'EUR',
    Positions: [
      { PositionId: 1, ProductId: `A${n % 50}`, Unit: 0, Amount: 1 + (n % 3), CurrentGrossPrice: 2.5 },
    ],
  };
}

async function worker(
  w: number,
  client: HttpClient,
  till: PosIdentity,
  shop: CheckoutIdentity,
  card: string,
  profile: string,
): Promise<void> {
  for (let n = 0; !stopping; n++) {
    const kind: Kind = (['basket', 'withdrawal', 'order'] as const)[(w + n) % 3] ?? 'basket';
    // Orders are named by a UUID (the checkout interface's basketId), the till's by its own numbers.
    const id = kind === 'order' ? randomUUID() : `${kind[0]}-${w}-${n}-${randomUUID().slice(0, 8)}`;
    let attempts = 0;
    let minor = 0;
    if (kind === 'basket') {
      const body = basketBody(n);
      attempts += await untilAnswered(
        () => client.pos(till, 'POST', `/baskets/${id}`, { body }),
        (a) => a.status === 200,
      );
      attempts += await untilAnswered(
        () => client.pos(till, 'POST', `/baskets/${id}/grant`, { sign: id }),
        (a) => a.status === 200,
      );
    } else if (kind === 'withdrawal') {
      minor = 1;
      attempts += await untilAnswered(
        () => client.withdraw(till, card, '0.01', id),
        (a) => a.status === 200,
      );
    } else {
      const body = { ...coffeeOrder(shop, profile, 1), basketId: id };
      minor = 100;
      // The same Idempotency-Key on every attempt: a retry answers the first answer.
      const key = `key-${id}`;
      attempts += await untilAnswered(
        () => signedOrder(client, shop, body, key),
        (a) => a.status === 200 || a.status === 201,
      );
    }
    done.push({ kind, id, ackAtMs: Date.now(), attempts, minor });
  }
}

function progress(): void {
  const of = (k: Kind) => done.filter((d) => d.kind === k).length;
  log(
    `${of('basket')} baskets granted, ${of('withdrawal')} withdrawals, ${of('order')} orders acknowledged; ${refusedAtMs.length} attempts refused or lost`,
  );
}

async function cluster(): Promise<{ name: string; role: string; state: string }[]> {
  for (const port of PATRONI) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/cluster`);
      if (res.ok)
        return ((await res.json()) as { members: { name: string; role: string; state: string }[] }).members;
    } catch {
      // that node is down; ask the other
    }
  }
  return [];
}

/** kill -9 of the leader's Patroni and PostgreSQL, as when its machine dies. Answers its name. */
async function killLeader(): Promise<string> {
  const leader = (await cluster()).find((m) => m.role === 'leader');
  if (!leader) throw new Error('no leader to kill');
  const postmaster =
    readFileSync(`${CLUSTER_DIR}/${leader.name}/postmaster.pid`, 'utf8').split('\n')[0] ?? '';
  const patroni = execFileSync('pgrep', ['-f', `patroni ${CLUSTER_DIR}/patroni${leader.name.slice(2)}.yml`])
    .toString()
    .trim()
    .split('\n');
  execFileSync('kill', ['-9', ...patroni, postmaster]);
  return leader.name;
}

async function main(): Promise<void> {
  const client = new HttpClient(FRONT, ADMIN, WORKERS + 4);
  const receiver = new Receiver();
  await receiver.start();
  const name = `failover-${Date.now().toString(36)}`;
  log(
    `setting up merchant ${name}: a till, a card of 10,000.00, a shop with a profile of 10,000.00, a webhook`,
  );
  const shop = await setupCheckoutHttp(client, name);
  const till = await setupTerminalHttp(client, `${name}-tills`);
  const card = `card-${randomUUID().slice(0, 12)}`;
  const reg = await client.pos(till, 'POST', `/tokens/${card}`);
  if (reg.status !== 200) throw new Error(`card: ${JSON.stringify(reg.body)}`);
  const loaded = await client.add(till, card, '10000.00');
  if (loaded.status !== 200) throw new Error(`load: ${JSON.stringify(loaded.body)}`);
  const profile = await fundedProfile(client, shop, 1_000_000);
  const hook = await client.call(
    'POST',
    '/api/v1/webhooks',
    { authorization: `Token ${shop.accessToken}`, 'idempotency-key': randomUUID() },
    { url: receiver.url, event: 'transaction.status.changed' },
  );
  if (hook.status !== 201) throw new Error(`webhook: ${JSON.stringify(hook.body)}`);

  const startedMs = Date.now();
  log(
    `${WORKERS} workers: uploads and grants, withdrawals of 0.01, orders of 1.00; the leader dies after ${BEFORE_MS / 1000} s`,
  );
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w, client, till, shop, card, profile));
  const failure = Promise.all(workers).then(
    () => null,
    (err: unknown) => err,
  );
  for (let waited = 0; waited < BEFORE_MS; waited += 5000) {
    await sleep(Math.min(5000, BEFORE_MS - waited));
    progress();
  }
  const before = done.length;
  const killedAtMs = Date.now();
  const killed = await killLeader();
  log(`killed ${killed} (kill -9 of its Patroni and PostgreSQL) with ${before} requests acknowledged`);
  let promoted: string | null = null;
  let promotedAtMs = 0;
  while (Date.now() - killedAtMs < AFTER_MS) {
    if (!promoted) {
      const leader = (await cluster()).find((m) => m.role === 'leader' && m.name !== killed);
      if (leader) {
        promoted = leader.name;
        promotedAtMs = Date.now();
        log(`${leader.name} promoted after ${((promotedAtMs - killedAtMs) / 1000).toFixed(1)} s`);
      }
    }
    await sleep(500);
    if ((Date.now() - killedAtMs) % 5000 < 500) progress();
  }
  stopping = true;
  const err = await failure;
  const endedMs = Date.now();
  if (err) throw err;

  // --- checks on the new leader ---------------------------------------------------------------
  const db = new pg.Client({ connectionString: LEADER_URL });
  await db.connect();
  const problems: string[] = [];
  const ids = (kind: Kind) => done.filter((d) => d.kind === kind).map((d) => d.id);
  const baskets = ids('basket');
  const granted = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM baskets WHERE basket_id = ANY($1) AND granted_at IS NOT NULL',
    [baskets],
  );
  if (Number(granted.rows[0]?.n) !== baskets.length)
    problems.push(
      `baskets: ${baskets.length} granted acknowledged, ${granted.rows[0]?.n} granted in the database`,
    );
  const withdrawals = ids('withdrawal');
  const postings = await db.query<{ transaction_id: string; n: string }>(
    'SELECT transaction_id, count(*) AS n FROM ledger_transfers WHERE transaction_id = ANY($1) GROUP BY transaction_id',
    [withdrawals],
  );
  const twice = postings.rows.filter((r) => Number(r.n) !== 1).length;
  if (postings.rows.length !== withdrawals.length || twice > 0)
    problems.push(
      `withdrawals: ${withdrawals.length} acknowledged, ${postings.rows.length} posted, ${twice} posted twice`,
    );
  const orders = ids('order');
  const placed = await db.query<{ basket_id: string; n: string }>(
    'SELECT basket_id, count(*) AS n FROM checkout_orders WHERE basket_id = ANY($1) GROUP BY basket_id',
    [orders],
  );
  const ordersTwice = placed.rows.filter((r) => Number(r.n) !== 1).length;
  if (placed.rows.length !== orders.length || ordersTwice > 0)
    problems.push(
      `orders: ${orders.length} acknowledged, ${placed.rows.length} in the database, ${ordersTwice} twice`,
    );
  // Balances: exactly what the acknowledged requests moved, no more (nothing unacknowledged booked).
  const balance = async (token: string) =>
    Number(
      (
        await db.query<{ b: string }>(
          `SELECT a.balance_minor AS b FROM cards c
             LEFT JOIN profiles p ON p.merchant_id = c.merchant_id AND p.id = c.profile_id
             JOIN ledger_accounts a ON a.merchant_id = c.merchant_id AND a.id = COALESCE(p.account_id, c.account_id)
            WHERE c.token_id = $1`,
          [token],
        )
      ).rows[0]?.b,
    );
  const cardExpected = 1_000_000 - withdrawals.length;
  const cardBalance = await balance(card);
  if (cardBalance !== cardExpected) problems.push(`card balance ${cardBalance}, expected ${cardExpected}`);
  const profileExpected = 1_000_000 - orders.length * 100;
  const profileBalance = await balance(profile);
  if (profileBalance !== profileExpected)
    problems.push(`profile balance ${profileBalance}, expected ${profileExpected}`);

  // The outbox delivers again: every message of the run delivered within a minute, none given up.
  let pending = -1;
  for (let i = 0; i < 120; i++) {
    const r = await db.query<{ pending: string; dead: string; after: string }>(
      `SELECT count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'dead') AS dead,
              count(*) FILTER (WHERE status = 'delivered' AND created_at > $1) AS after
         FROM outbox_messages WHERE created_at >= $2`,
      [new Date(killedAtMs), new Date(startedMs)],
    );
    pending = Number(r.rows[0]?.pending);
    if (pending === 0) {
      if (Number(r.rows[0]?.dead) > 0) problems.push(`outbox: ${r.rows[0]?.dead} messages given up`);
      if (Number(r.rows[0]?.after) === 0)
        problems.push('outbox: nothing written after the failover was delivered');
      break;
    }
    await sleep(500);
  }
  if (pending !== 0) problems.push(`outbox: ${pending} messages still pending a minute after the run`);
  await db.end();

  let ledger = 'clean';
  try {
    execFileSync('npx', ['tsx', 'scripts/ledger-verify.ts'], {
      env: { ...process.env, DATABASE_URL: LEADER_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    ledger = `NOT clean: ${String((e as { stdout?: Buffer }).stdout ?? e)}`;
    problems.push(`ledger:verify ${ledger}`);
  }

  const after = refusedAtMs.filter((t) => t >= killedAtMs);
  const unavailableSec = after.length > 0 ? ((Math.max(...after) - killedAtMs) / 1000).toFixed(1) : '0.0';
  const count = (k: Kind) => done.filter((d) => d.kind === k).length;
  // Requests wait rather than fail while PgBouncer holds them for a leader: the longest time
  // after the kill with no write acknowledged says how long the service stood still.
  const acks = [killedAtMs, ...done.map((d) => d.ackAtMs).filter((t) => t >= killedAtMs)].sort(
    (a, b) => a - b,
  );
  let stalledMs = 0;
  for (let i = 1; i < acks.length; i++) stalledMs = Math.max(stalledMs, (acks[i] ?? 0) - (acks[i - 1] ?? 0));
  const retried = done.filter((d) => d.attempts > (d.kind === 'basket' ? 2 : 1)).length;
  const figures = {
    seconds: ((endedMs - startedMs) / 1000).toFixed(1),
    killed,
    promoted,
    promotedAfterSec: promoted ? ((promotedAtMs - killedAtMs) / 1000).toFixed(1) : null,
    refusedForSec: unavailableSec,
    noWriteAcknowledgedForSec: (stalledMs / 1000).toFixed(1),
    refusedAttempts: refusedAtMs.length,
    refusedByStatus: Object.fromEntries(refusalsByStatus),
    acknowledged: {
      basketsGranted: count('basket'),
      withdrawals: count('withdrawal'),
      orders: count('order'),
    },
    repeatedUntilAnswered: retried,
    lostAcknowledged: problems.filter((p) => /acknowledged/.test(p)).length,
    ledger,
    webhooksReceived: receiver.received.length,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  await receiver.stop();
  await client.close();
  if (problems.length > 0) {
    log(`FAILED:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  log(
    `passed: zero acknowledged writes lost, zero double bookings, ledger verified; requests refused for ${unavailableSec} s after the kill, no write acknowledged for ${(stalledMs / 1000).toFixed(1)} s`,
  );
}

main().catch((err: unknown) => {
  log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
