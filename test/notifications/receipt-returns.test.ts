import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import {
  type MailCatcher,
  eventually,
  profileWithCard,
  startMailCatcher,
  uniqueId,
  uploadAndGrant,
} from './support.js';

/** 1 point per 1.00 spent. */
const points = { name: 'Points', earn: [{ per: 'amount', amount: 1, points: 1 }], reward: null };

describe.each(databases)('receipts with points and returns on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let smtp: MailCatcher;
  let ticking: NodeJS.Timeout;

  beforeAll(async () => {
    smtp = await startMailCatcher();
    t = await startApp(kind, { smtpUrl: smtp.url }, { OUTBOX_POLL_MS: '20' });
    ticking = setInterval(() => t.clock.advance(100), 20);
    term = await setupTerminal(t);
    const res = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`,
      points,
    );
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => {
    clearInterval(ticking);
    await t?.close();
    await smtp?.close();
  });

  it('"Returns that change what the consumer earned notify too, and show on the receipt"; the operator API reads the receipt URL', async () => {
    const { cardId, email } = await profileWithCard(t, term, { language: 'en' });
    const basketId = uniqueId('ret');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const mine = () => smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
    const [first] = await eventually(() => {
      expect(mine()).toHaveLength(1);
      return mine();
    });
    // 9.20 spent: 9 points earned, and the new balance.
    expect(first?.text).toContain('Points: 9 earned, new balance 9');

    const read = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/baskets/${term.trackingUnitId}/${basketId}`,
    );
    expect(read.statusCode, read.body).toBe(200);
    const { receiptUrl } = read.json() as { receiptUrl: string };
    expect(receiptUrl).toMatch(
      new RegExp(`^${t.config.publicBaseUrl}/receipts/[0-9a-f]{12}[A-Za-z0-9_-]{22}$`),
    );
    expect(first?.text).toContain(receiptUrl);
    const unknown = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/baskets/${term.trackingUnitId}/nope`,
    );
    expect(unknown.statusCode).toBe(404);

    // One of the two cappuccinos comes back: 3.50 of the points are taken back.
    const returned = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: `${basketId}R1`,
    });
    expect(returned.statusCode, returned.body).toBe(200);
    await eventually(() => expect(mine()).toHaveLength(2));
    const page = await t.app.inject({ method: 'GET', url: new URL(receiptUrl).pathname });
    expect(page.statusCode).toBe(200);
    const flat = page.body.replace(/\s+/g, ' ');
    expect(flat).toContain('Returns');
    expect(flat).toContain('1 × Cappuccino');
    expect(flat).toContain('−€3.50');
    expect(mine()[1]?.text).toContain('Returns');

    // The croissant comes back too: 2 more points taken back, another notification.
    const second = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R2', Positions: [{ PositionId: 2, Amount: 1 }] },
      sign: `${basketId}R2`,
    });
    expect(second.statusCode, second.body).toBe(200);
    await eventually(() => expect(mine()).toHaveLength(3));
  });

  it('a grant without any consumer gets a receipt (docs/decisions.md "Receipts": every granted basket gets one) and queues nothing', async () => {
    const basketId = uniqueId('anon');
    await uploadAndGrant(term, basketId, {});
    const read = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/baskets/${term.trackingUnitId}/${basketId}`,
    );
    const { receiptUrl } = read.json() as { receiptUrl: string };
    const page = await t.app.inject({ method: 'GET', url: new URL(receiptUrl).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Croissant');
    const receiptId = receiptUrl.split('/').pop() ?? '';
    const queued = await t.database.db
      .selectFrom('outbox_messages')
      .select('id')
      .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptId}%`))
      .execute();
    expect(queued).toEqual([]);
  });
});
