import { type AddressInfo, type Socket, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/notifications/mailer.js';
import { systemClock } from '../../src/shared/clock.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { profileWithCard } from './support.js';

/**
 * A mail server that stops answering cannot hold a send for longer than its limit (docs/decisions.md,
 * "Outbox and dispatcher": a send ends well within its claim's lease): the send fails, the
 * connection is closed, and the dispatcher records the attempt and tries again on its schedule.
 */
const LIMIT_MS = 300;
/**
 * The tarpit's limit: the whole dialogue up to the message's end has to fit in it before the
 * tarpit is reached (on a loopback a few milliseconds, on a machine busy with other test files once
 * more than 300 ms, when the send ended before the message was held).
 */
const TARPIT_LIMIT_MS = 1_500;

describe('a send over SMTP ends within its limit whatever the server does', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'punchcard-mail-timeout-'));
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const mail = {
    to: 'guest@example.com',
    subject: 'Your receipt',
    text: 'Thank you',
    html: '<p>Thank you</p>',
  };

  /** How a send to `url` ends, and after how long. */
  async function sendTo(url: string, limitMs = LIMIT_MS): Promise<{ error: unknown; ms: number }> {
    const mailer = createMailer({
      smtpUrl: url,
      dataDir,
      from: 'Punchcard <receipts@example.com>',
      clock: systemClock,
      sendTimeoutMs: limitMs,
    });
    const started = performance.now();
    const error = await mailer.send(mail).then(
      () => null,
      (err: unknown) => err,
    );
    mailer.close();
    return { error, ms: performance.now() - started };
  }

  it('a server that takes the message and never answers its end (a tarpit): the send fails at the limit and the connection is closed', async () => {
    let held = 0;
    let closed = 0;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream) {
        held += 1;
        stream.resume(); // the message is read, its end never answered
      },
      onClose() {
        closed += 1;
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.server.address() as AddressInfo;

    const { error, ms } = await sendTo(`smtp://127.0.0.1:${port}`, TARPIT_LIMIT_MS);
    expect(held).toBe(1);
    expect(error).toMatchObject({ code: 'EABORT' });
    expect(ms).toBeGreaterThanOrEqual(TARPIT_LIMIT_MS - 20);
    expect(ms).toBeLessThan(TARPIT_LIMIT_MS + 5_000);
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(1);
  });

  it('a server that takes the connection and never greets: the send fails at the limit', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as AddressInfo;

    const { error, ms } = await sendTo(`smtp://127.0.0.1:${port}`);
    expect(sockets.length).toBe(1);
    expect(error).toMatchObject({ code: 'EABORT' });
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 20);
    expect(ms).toBeLessThan(LIMIT_MS + 5_000);
  });
});

describe('the consumer sign-in page and a mail server slow to answer', () => {
  // The mail server greets only once the test opens the gate.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const received: string[] = [];
  const slow = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      void gate.then(() => callback());
    },
    onData(stream, _session, callback) {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => {
        received.push(text);
        callback();
      });
    },
  });
  let t: TestApp;
  beforeAll(async () => {
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.server.address() as AddressInfo;
    t = await startApp(databases[0] ?? 'pglite', { smtpUrl: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    open();
    await t?.close();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  it('answers a known address the same page as an unknown one without waiting for the mail (its time would tell which addresses have an account); the mail follows the answer', async () => {
    const term = await setupTerminal(t);
    const { email } = await profileWithCard(t, term);
    const ask = (address: string) =>
      t.app.inject({
        method: 'POST',
        url: '/me/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${encodeURIComponent(address)}`,
      });
    const known = await ask(email);
    const unknown = await ask('nobody@example.org');
    expect([known.statusCode, unknown.statusCode]).toEqual([200, 200]);
    expect(known.body).toBe(unknown.body);
    // Only now may the mail server greet: a page that waited for the mail got it failed instead.
    open();
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    expect(received[0]).toContain('/me/sign-in/');
  });
});
