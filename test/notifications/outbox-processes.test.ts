import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_ADMIN_TOKEN, type RunningServer } from '../../bench/lib/server.js';
import { type HttpTerminal, posHeaders, setupHttpTerminal } from '../../bench/server-process.js';
import { serviceDatabase, startService } from '../support/child-service.js';
import { type DatabaseKind, databases } from '../support/harness.js';
import { type MailCatcher, eventually, receiptBasket, startMailCatcher } from './support.js';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

async function adminCall(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}/api/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** A profile with an e-mail and a linked customer card, over HTTP. */
async function consumer(base: string, t: HttpTerminal, n: number): Promise<{ card: string; email: string }> {
  const email = `consumer-${n}@example.org`;
  const { id } = (await adminCall(base, 'POST', `/merchants/${t.serviceUserName}/profiles`, {
    email,
    language: 'en',
  })) as { id: number };
  const card = `card-${n}`;
  await adminCall(base, 'POST', `/profiles/${id}/tokens`, { tokenId: card, tokenType: 0 });
  return { card, email };
}

async function grantOver(base: string, t: HttpTerminal, basketId: string, card: string): Promise<void> {
  const up = await fetch(`${base}/api/pos/v3/baskets/${basketId}?consumerIdentToken=${card}`, {
    method: 'POST',
    headers: posHeaders(t),
    body: JSON.stringify(receiptBasket(false)),
  });
  expect(up.status, await up.text()).toBe(200);
  const grant = await fetch(`${base}/api/pos/v3/baskets/${basketId}/grant`, {
    method: 'POST',
    headers: { ...posHeaders(t), securitytoken: md5(`${basketId}qPnsS14${t.checksumSecret}`) },
  });
  expect(grant.status, await grant.text()).toBe(200);
}

/** A mail catcher and a database of their own for a service, each removed after the file. */
async function mailingDatabase(
  kind: DatabaseKind,
  label: string,
  cleanups: (() => Promise<void>)[],
): Promise<{ smtp: MailCatcher; env: Record<string, string> }> {
  const smtp = await startMailCatcher();
  cleanups.push(() => smtp.close());
  const database = await serviceDatabase(kind, label);
  cleanups.push(() => database.drop());
  return { smtp, env: { ...database.env, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '50' } };
}

/** The one mail that arrives (soon), to `email`. */
async function oneMailTo(smtp: MailCatcher, email: string): Promise<void> {
  const mails = await eventually(() => {
    expect(smtp.mails).toHaveLength(1);
    return smtp.mails;
  }, 20_000);
  expect(JSON.stringify(mails[0]?.to)).toContain(email);
}

const receiptLinks = (smtp: MailCatcher) =>
  smtp.mails.map((m) => /\/receipts\/([A-Za-z0-9_-]+)/.exec(m.text ?? '')?.[1] ?? '').filter((x) => x);

describe.each(databases)('the dispatcher across processes on %s', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('"survives a restart": a server killed with SIGKILL between the grant\'s commit and the send delivers after restart', async () => {
    const { smtp, env } = await mailingDatabase(kind, 'outbox_kill', cleanups);
    // The first process commits grants but sends nothing (its dispatcher is off), then dies hard.
    let server: RunningServer = await startService({ ...env, OUTBOX_DISABLED: 'true' });
    cleanups.push(() => server.kill());
    const t = await setupHttpTerminal(server.baseUrl, `kill-${kind}`);
    const { card, email } = await consumer(server.baseUrl, t, 1);
    await grantOver(server.baseUrl, t, 'killed-1', card);
    await server.kill('SIGKILL');
    expect(smtp.mails).toHaveLength(0);

    server = await startService(env);
    await oneMailTo(smtp, email);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.mails).toHaveLength(1);
  }, 180_000);

  it('a server stopped (SIGTERM) while the mail relay stops answering exits with 0, not at its 30 s limit; the mail it cut off is sent after the restart', async () => {
    const { smtp, env } = await mailingDatabase(kind, 'outbox_stop', cleanups);
    let server: RunningServer = await startService(env);
    cleanups.push(() => server.kill());
    const t = await setupHttpTerminal(server.baseUrl, `stop-${kind}`);
    const { card, email } = await consumer(server.baseUrl, t, 3);
    smtp.stall = true;
    await grantOver(server.baseUrl, t, 'stopped-1', card);
    await eventually(() => expect(smtp.stalled).toBe(1), 20_000);

    const exited = new Promise<number | null>((r) => server.child.once('exit', (code) => r(code)));
    const stopping = performance.now();
    server.child.kill('SIGTERM');
    // A send may take 30 s, as long as the whole stop may: the stop's grace for sends is 5 s.
    expect(await exited).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(20_000);
    expect(smtp.mails).toHaveLength(0);

    // The attempt was recorded as cut off and due at once, not left to its claim's 60 s lease.
    smtp.stall = false;
    server = await startService(env);
    await oneMailTo(smtp, email);
  }, 180_000);

  if (kind === 'postgres')
    it('"several server processes on one PostgreSQL": two processes deliver each message once', async () => {
      const smtp = await startMailCatcher();
      cleanups.push(() => smtp.close());
      const database = await serviceDatabase('postgres', 'outbox_two');
      cleanups.push(() => database.drop());
      const env = { ...database.env, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '20' };
      const a = await startService({ ...env, OUTBOX_DISABLED: 'true' });
      cleanups.push(() => a.kill());
      const t = await setupHttpTerminal(a.baseUrl, 'two-processes');
      const { card } = await consumer(a.baseUrl, t, 2);
      const count = 40;
      for (let i = 0; i < count; i++) await grantOver(a.baseUrl, t, `two-${i}`, card);
      await a.stop();
      // Both start on the queued messages at once.
      const both = await Promise.all([startService(env), startService(env)]);
      for (const server of both) cleanups.push(() => server.kill());
      const links = await eventually(() => {
        const found = receiptLinks(smtp);
        expect(found.length).toBeGreaterThanOrEqual(count);
        return found;
      }, 30_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiptLinks(smtp)).toHaveLength(count);
      expect(new Set(links).size).toBe(count);
    }, 180_000);
});
