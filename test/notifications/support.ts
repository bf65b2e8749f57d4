import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect } from 'vitest';
import { type DatabaseKind, type TestApp, type Terminal, startApp } from '../support/harness.js';
import { tokens } from '../cards/cards-support.js';
import { createSignIn, profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import { type PushService, startPushService } from './push-service.js';

/**
 * An SMTP server in the test process: what arrives is parsed; the first `refuse` mails are refused;
 * a recipient in `unknown` is refused for good (550 to RCPT TO, an address that does not exist);
 * the next `unknownSenders` mails have their sender refused (550 to MAIL FROM);
 * while `stall` is on, a mail's end is never answered (a relay that stopped answering).
 */
export interface MailCatcher {
  readonly url: string;
  readonly mails: ParsedMail[];
  /** Refusals still to answer (each a 451 after DATA). */
  refuse: number;
  refused: number;
  /** Addresses refused for good, and each refusal answered. */
  readonly unknown: Set<string>;
  readonly refusedRecipients: string[];
  /** Addresses whose mailbox answers "try again later" (452 to RCPT TO) for as long as they stay here. */
  readonly busy: Set<string>;
  /** Senders still to refuse. */
  unknownSenders: number;
  stall: boolean;
  /** Mails whose end went unanswered while `stall` was on. */
  stalled: number;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const catcher: MailCatcher = {
    url: '',
    mails: [],
    refuse: 0,
    refused: 0,
    unknown: new Set(),
    refusedRecipients: [],
    busy: new Set(),
    unknownSenders: 0,
    stall: false,
    stalled: 0,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      if (catcher.unknownSenders <= 0) return callback();
      catcher.unknownSenders -= 1;
      const err = new Error('5.7.1 Sender not allowed') as Error & { responseCode: number };
      err.responseCode = 550;
      callback(err);
    },
    onRcptTo(address, _session, callback) {
      if (catcher.busy.has(address.address)) {
        const err = new Error('4.2.2 Mailbox full, try again later') as Error & { responseCode: number };
        err.responseCode = 452;
        return callback(err);
      }
      if (!catcher.unknown.has(address.address)) return callback();
      catcher.refusedRecipients.push(address.address);
      const err = new Error('5.1.1 No such user here') as Error & { responseCode: number };
      err.responseCode = 550;
      callback(err);
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (catcher.stall) {
          catcher.stalled += 1;
          return;
        }
        if (catcher.refuse > 0) {
          catcher.refuse -= 1;
          catcher.refused += 1;
          const err = new Error('Try again later') as Error & { responseCode: number };
          err.responseCode = 451;
          callback(err);
          return;
        }
        simpleParser(Buffer.concat(chunks))
          .then((mail) => {
            catcher.mails.push(mail);
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(catcher, {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Waits until `check` holds, polling; fails the test after `ms`. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A basket with names, ProductProps, VAT rates and the till's BillPdf. */
export function receiptBasket(withPdf = true) {
  return {
    Timestamp: '2026-03-02T16:59:00+01:00',
    HasDiscounts: false,
    BillNumber: 'R-1001',
    ...(withPdf ? { BillPdf: PDF.toString('base64') } : {}),
    Positions: [
      {
        PositionId: 1,
        ProductId: '1001',
        ProductName: 'Cappuccino',
        Unit: 0,
        Amount: 2,
        CurrentGrossPrice: 3.5,
        VatInPercent: 19,
        ProductProps: { Milk: 'Oat', Size: 'Large' },
      },
      {
        PositionId: 2,
        ProductId: '2001',
        ProductName: 'Croissant',
        Unit: 0,
        Amount: 1,
        CurrentGrossPrice: 2.2,
        VatInPercent: 7,
      },
    ],
  };
}

let n = 0;
export const uniqueId = (prefix: string) => `${prefix}-${process.pid}-${(n += 1)}`;

/** A profile with an e-mail and a customer card linked to it. */
export async function profileWithCard(
  t: TestApp,
  term: Terminal,
  options: { email?: string; language?: string; fullName?: string } = {},
): Promise<{ profileId: number; cardId: string; email: string }> {
  const email = options.email ?? `${uniqueId('anna')}@example.org`;
  const res = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
    fullName: options.fullName ?? 'Anna Berg',
    email,
    language: options.language ?? 'de-DE',
  });
  expect(res.statusCode).toBe(201);
  const profileId = (res.json() as { id: number }).id;
  const cardId = uniqueId('card');
  const link = await t.admin('POST', `/profiles/${profileId}/tokens`, {
    tokenId: cardId,
    tokenType: 'customer',
  });
  expect(link.statusCode).toBe(200);
  return { profileId, cardId, email };
}

/** Upload and grant a basket; the grant's answer. */
export async function uploadAndGrant(
  term: Terminal,
  basketId: string,
  query: Record<string, string>,
  body: object = receiptBasket(),
): Promise<void> {
  const up = await term.pos('POST', `/baskets/${basketId}`, { query, body });
  expect(up.statusCode, up.body).toBe(200);
  const grant = await term.pos('POST', `/baskets/${basketId}/grant`, {
    sign: basketId,
    query: { redeemedInPos: 'true' },
  });
  expect(grant.statusCode, grant.body).toBe(200);
}

export async function giftCard(term: Terminal): Promise<string> {
  const id = uniqueId('gift');
  const res = await tokens(term).register(id, { tokentype: 'gift' });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

/**
 * The app of a test file whose mails go to a catcher in the test process, started before the
 * file's tests and closed after them; its clock moves on 100 ms every 20 ms, so that the outbox's
 * sends fall due. Read `t` and `smtp` once the tests run. `env` adds settings (WEBHOOK_ALLOW_PRIVATE
 * for the local push service).
 */
export function appWithMail(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): { readonly t: TestApp; readonly smtp: MailCatcher } {
  const running = {} as { t: TestApp; smtp: MailCatcher };
  let ticking: NodeJS.Timeout | undefined;
  beforeAll(async () => {
    running.smtp = await startMailCatcher();
    running.t = await startApp(kind, { smtpUrl: running.smtp.url }, { OUTBOX_POLL_MS: '20', ...env });
    ticking = setInterval(() => running.t.clock.advance(100), 20);
  });
  afterAll(async () => {
    clearInterval(ticking);
    await running.t?.close();
    await running.smtp?.close();
  });
  return running;
}

/** The consumer signed in at /me by a one-time link, as by the mail: the session cookie and the page's CSRF token. */
export async function consumerSignIn(t: TestApp, email: string): Promise<{ cookie: string; csrf: string }> {
  const [profile] = await profilesByEmail(t.database.db, email);
  if (!profile) throw new Error('no profile');
  const token = await createSignIn(t.database.db, profile, t.clock.nowMs());
  const res = await t.app.inject({ method: 'GET', url: `/me/sign-in/${token}` });
  expect(res.statusCode).toBe(303);
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Lax/);
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await t.app.inject({ method: 'GET', url: '/me', headers: { cookie } });
  const csrf = /data-csrf="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return { cookie, csrf };
}

/**
 * The consumer with this address subscribes a browser to push in /me, as the page's script does:
 * the session and the subscription's path at the push service (where its messages arrive).
 */
export async function subscribeToPush(
  t: TestApp,
  push: PushService,
  email: string,
): Promise<{ cookie: string; csrf: string; path: string }> {
  const session = await consumerSignIn(t, email);
  const subscription = push.subscribe();
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/me/v1/push-subscriptions',
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    payload: subscription,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...session, path: new URL(subscription.endpoint).pathname };
}

/**
 * The push service of a test file (push-service.ts), started before the file's tests and closed
 * after them; the app needs WEBHOOK_ALLOW_PRIVATE to send to it. Read its members once the tests run.
 */
export function localPushService(): PushService {
  let service: PushService | undefined;
  const running = (): PushService => {
    if (!service) throw new Error('the push service starts before the tests');
    return service;
  };
  beforeAll(async () => {
    service = await startPushService();
  });
  afterAll(async () => {
    await service?.close();
  });
  return {
    get url() {
      return running().url;
    },
    get received() {
      return running().received;
    },
    get failures() {
      return running().failures;
    },
    subscribe: () => running().subscribe(),
    close: () => running().close(),
  };
}

/** The tiers of the Coffee card of the tier notification tests: Silver from 8 points, Gold from 30. */
export const COFFEE_CARD_TIERS = [
  { name: 'Silver', threshold: 8, multiplier: 1.5 },
  { name: 'Gold', threshold: 30, multiplier: 2 },
];

/** The merchant's scheme "Coffee card": 1 point per 1.00, with COFFEE_CARD_TIERS by points over 30 days. */
export async function coffeeCardWithTiers(t: TestApp, term: Terminal): Promise<void> {
  const res = await t.admin('POST', `/merchants/${term.serviceUserName}/loyaltySchemes`, {
    name: 'Coffee card',
    earn: [{ per: 'amount', amount: 1, points: 1 }],
    tiers: COFFEE_CARD_TIERS,
    tierBasis: { measure: 'points', period: { rollingDays: 30 } },
  });
  expect(res.statusCode, res.body).toBe(201);
}

/** How many purchase notifications were written for the receipt at `receiptUrl` (its last path segment). */
export async function purchaseNotificationsOf(t: TestApp, receiptUrl: string | null): Promise<number> {
  const id = receiptUrl?.split('/').pop() ?? '';
  const rows = await t.database.db
    .selectFrom('outbox_messages')
    .select('id')
    .where('topic', '=', 'purchase.notification')
    .where((eb) => eb(eb.ref('payload', '->>').key('receiptId' as never), '=', id))
    .execute();
  return rows.length;
}
