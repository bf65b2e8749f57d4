import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_ADMIN_TOKEN, type RunningServer } from '../../bench/lib/server.js';
import { type HttpTerminal, posHeaders, setupHttpTerminal } from '../../bench/server-process.js';
import { serviceDatabase, startService } from '../support/child-service.js';
import { databases } from '../support/harness.js';
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

const receiptLinks = (smtp: MailCatcher) =>
  smtp.mails.map((m) => /\/receipts\/([A-Za-z0-9_-]+)/.exec(m.text ?? '')?.[1] ?? '').filter((x) => x);

describe.each(databases)('the dispatcher across processes on %s', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('"survives a restart": a server killed with SIGKILL between the grant\'s commit and the send delivers after restart', async () => {
    const smtp = await startMailCatcher();
    cleanups.push(() => smtp.close());
    const database = await serviceDatabase(kind, 'outbox_kill');
    cleanups.push(() => database.drop());
    const env = { ...database.env, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '50' };
    // The first process commits grants but sends nothing (its dispatcher is off), then dies hard.
    let server: RunningServer = await startService({ ...env, OUTBOX_DISABLED: 'true' });
    cleanups.push(() => server.kill());
    const t = await setupHttpTerminal(server.baseUrl, `kill-${kind}`);
    const { card, email } = await consumer(server.baseUrl, t, 1);
    await grantOver(server.baseUrl, t, 'killed-1', card);
    await server.kill('SIGKILL');
    expect(smtp.mails).toHaveLength(0);

    server = await startService(env);
    const mails = await eventually(() => {
      expect(smtp.mails).toHaveLength(1);
      return smtp.mails;
    }, 20_000);
    expect(JSON.stringify(mails[0]?.to)).toContain(email);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.mails).toHaveLength(1);
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
