import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  eventually,
  localPushService,
  profileWithCard,
  receiptBasket,
  subscribeToPush,
  uniqueId,
  uploadAndGrant,
} from './support.js';

/**
 * "Only then does the service notify the consumer of the purchase, by e-mail or, for app users, by
 * push": a consumer with both gets the push whatever the mail server does, once; a mail that
 * cannot be delivered now is retried, one the server refuses for good is given up with its answer.
 */
describe.each(databases)('a purchase notification by mail and push on %s', (kind) => {
  const push = localPushService();
  const app = appWithMail(kind, { WEBHOOK_ALLOW_PRIVATE: 'true', OUTBOX_RETRY_SCHEDULE_MS: '50,50,50' });
  let t: TestApp;
  let term: Terminal;

  beforeAll(async () => {
    t = app.t;
    term = await setupTerminal(t);
  });

  /** The purchase notification of the consumer's only grant, once the dispatcher is done with it. */
  const settledMessage = (profileId: number) =>
    eventually(async () => {
      const m = await t.database.db
        .selectFrom('outbox_messages')
        .select(['id', 'status', 'attempts', 'last_error'])
        .where('topic', '=', 'purchase.notification')
        .where(sql<boolean>`payload->>'profileId' = ${String(profileId)}`)
        .executeTakeFirstOrThrow();
      expect(['delivered', 'dead']).toContain(m.status);
      return m;
    });
  const attemptsOf = (messageId: number) =>
    t.database.db
      .selectFrom('outbox_attempts')
      .select(['attempt', 'ok', 'error', 'detail'])
      .where('message_id', '=', messageId)
      .orderBy('attempt')
      .execute();
  const pushesTo = (path: string) => push.received.filter((m) => m.path === path);
  const mailsTo = (email: string) => app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));

  it('a mail server that refuses for now does not hold the push back: the push goes with the first attempt and is not sent again, the mail arrives on the third', async () => {
    const { profileId, cardId, email } = await profileWithCard(t, term, { language: 'en' });
    const { path } = await subscribeToPush(t, push, email);
    app.smtp.refuse = 2;
    await uploadAndGrant(term, uniqueId('flaky'), { consumerIdentToken: cardId }, receiptBasket(false));
    const message = await settledMessage(profileId);
    expect(message.status).toBe('delivered');
    const attempts = await attemptsOf(message.id);
    expect(attempts.map((a) => [a.ok, a.detail?.mail, a.detail?.push])).toEqual([
      [false, 'failed', ['sent']],
      [false, 'failed', 'sent_before'],
      [true, 'sent', 'sent_before'],
    ]);
    expect(attempts[0]?.error).toMatch(/^mail: .*451/);
    expect(mailsTo(email)).toHaveLength(1);
    expect(pushesTo(path)).toHaveLength(1);
    expect(push.failures).toEqual([]);
  });

  it('an address the mail server refuses for good (550 to RCPT TO) is given up at once with its answer, and the push still goes', async () => {
    const { profileId, cardId, email } = await profileWithCard(t, term, { language: 'en' });
    const { path } = await subscribeToPush(t, push, email);
    app.smtp.unknown.add(email);
    await uploadAndGrant(term, uniqueId('unknown'), { consumerIdentToken: cardId }, receiptBasket(false));
    const message = await settledMessage(profileId);
    expect(message).toMatchObject({ status: 'dead', attempts: 1 });
    expect(message.last_error).toMatch(/^mail refused: .*550 5\.1\.1 No such user here/);
    const attempts = await attemptsOf(message.id);
    expect(attempts.map((a) => [a.ok, a.detail?.mail, a.detail?.push])).toEqual([
      [false, 'refused', ['sent']],
    ]);
    expect(mailsTo(email)).toHaveLength(0);
    await eventually(() => expect(pushesTo(path)).toHaveLength(1));
  });

  it("a refusal of the service's own sender (550 to MAIL FROM is the operator's to mend) is tried again by the schedule, not given up", async () => {
    const { profileId, cardId, email } = await profileWithCard(t, term, { language: 'en' });
    app.smtp.unknownSenders = 2;
    await uploadAndGrant(term, uniqueId('sender'), { consumerIdentToken: cardId }, receiptBasket(false));
    const message = await settledMessage(profileId);
    expect(message.status).toBe('delivered');
    const attempts = await attemptsOf(message.id);
    expect(attempts.map((a) => [a.ok, a.detail?.mail])).toEqual([
      [false, 'failed'],
      [false, 'failed'],
      [true, 'sent'],
    ]);
    expect(mailsTo(email)).toHaveLength(1);
  });
});
