import { type AddressInfo, type Socket, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/notifications/mailer.js';
import { systemClock } from '../../src/shared/clock.js';

/**
 * A mail server that stops answering cannot hold a send for longer than its limit (docs/decisions.md,
 * "Outbox and dispatcher": a send ends well within its claim's lease): the send fails, the
 * connection is closed, and the dispatcher records the attempt and tries again on its schedule.
 */
const LIMIT_MS = 300;

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
  async function sendTo(url: string): Promise<{ error: unknown; ms: number }> {
    const mailer = createMailer({
      smtpUrl: url,
      dataDir,
      from: 'Punchcard <receipts@example.com>',
      clock: systemClock,
      sendTimeoutMs: LIMIT_MS,
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

    const { error, ms } = await sendTo(`smtp://127.0.0.1:${port}`);
    expect(held).toBe(1);
    expect(error).toMatchObject({ code: 'EABORT' });
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 20);
    expect(ms).toBeLessThan(LIMIT_MS + 5_000);
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
