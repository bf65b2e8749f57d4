import { describe, expect, it } from 'vitest';
import type { Mailer, OutgoingMail } from '../../src/notifications/mailer.js';
import { refusedForGood, sendLinkMail } from '../../src/notifications/mail-retry.js';

/** docs/decisions.md, "Links by mail" and "A mail refused for good is given up at once". */
describe('a link mail tried again', () => {
  const mail: OutgoingMail = { to: 'anna@example.org', subject: 'Link', text: 'x', html: '<p>x</p>' };
  /** A mailer failing with `failures` in turn, then accepting; the sends it was asked for. */
  const mailer = (failures: unknown[]): Mailer & { sends: number } => {
    const m = {
      sends: 0,
      send: async () => {
        m.sends += 1;
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
      },
      close: () => undefined,
    };
    return m;
  };
  const smtpError = (responseCode: number, command: string) =>
    Object.assign(new Error(`${responseCode} refused`), {
      responseCode,
      permanent: responseCode >= 500,
      command,
    });

  it('a permanent answer to the recipient or the message is a refusal for good; to the sender, a temporary answer or none is not', () => {
    expect(refusedForGood(smtpError(550, 'RCPT TO'))).toBe(true);
    expect(refusedForGood(smtpError(554, 'DATA'))).toBe(true);
    expect(refusedForGood(smtpError(550, 'MAIL FROM'))).toBe(false);
    expect(refusedForGood(smtpError(535, 'AUTH PLAIN'))).toBe(false);
    expect(refusedForGood(smtpError(451, 'DATA'))).toBe(false);
    expect(refusedForGood(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' }))).toBe(false);
    expect(refusedForGood(null)).toBe(false);
  });

  it('failed for now twice, it is sent on the third try; a third failure is the answer', async () => {
    const flaky = mailer([smtpError(451, 'DATA'), smtpError(421, 'CONN')]);
    await sendLinkMail(flaky, mail, new AbortController().signal, [1, 1]);
    expect(flaky.sends).toBe(3);
    const down = mailer([smtpError(451, 'DATA'), smtpError(451, 'DATA'), smtpError(452, 'DATA')]);
    await expect(sendLinkMail(down, mail, new AbortController().signal, [1, 1])).rejects.toThrow('452');
    expect(down.sends).toBe(3);
  });

  it('refused for good, it is not tried again', async () => {
    const unknown = mailer([smtpError(550, 'RCPT TO')]);
    await expect(sendLinkMail(unknown, mail, new AbortController().signal, [1, 1])).rejects.toThrow('550');
    expect(unknown.sends).toBe(1);
  });

  it("the service's close ends the wait before the next try", async () => {
    const stop = new AbortController();
    const down = mailer([smtpError(451, 'DATA'), smtpError(451, 'DATA')]);
    const sent = sendLinkMail(down, mail, stop.signal, [60_000, 60_000]);
    await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await expect(sent).rejects.toThrow('451');
    expect(down.sends).toBe(1);
  });
});
