import type { BasketDeps } from './baskets/basket-deps.js';
import { posBasketReceipts } from './baskets/basket-receipt.js';
import { BasketWriter } from './baskets/basket-write.store.js';
import type { GroupCommitOptions } from './shared/group-commit.js';
import { GrantWriter } from './baskets/grant-write.store.js';
import { RuleSetCache } from './campaigns/live-rules.store.js';
import type { AppContext } from './context.js';
import { checkoutOrderReceipts } from './orders/checkout-receipt.js';
import { MenuCache } from './orders/menu-cache.js';
import { ORDER_REFUSALS } from './orders/order-model.js';
import { OrderWriter, type OrderWriterOptions } from './orders/order-write.store.js';
import type { CheckoutDeps } from './orders/order.service.js';
import { type CardDeps, createCardCache } from './cards/card.service.js';
import { TransferWriter } from './ledger/transfer-write.store.js';
import type { TillBookingDeps } from './cards/till-cards.js';
import { TerminalAuth, createTerminalCache } from './merchants/terminal.js';
import { TerminalSignatures } from './merchants/terminal-signature.js';
import { BulkUploadSlots } from './sortiment/bulk-slots.js';
import { WebhookDeliveryHandler } from './webhooks/webhook-delivery.js';
import type { WebhookDeps } from './webhooks/webhook-registration.js';
import { type Mailer, createMailer } from './notifications/mailer.js';
import { TierChangeHandler } from './notifications/tier.handler.js';
import { WelcomeMailHandler } from './notifications/welcome.handler.js';
import { PurchaseNotificationHandler } from './notifications/purchase.handler.js';
import { PushSender } from './notifications/push.js';
import type { ReceiptDeps } from './notifications/receipt-lookup.js';
import { type OutboxHandler, OutboxDispatcher } from './outbox/dispatcher.js';
import type { ReceiptSource } from './receipts/receipt-view.js';
import { WriteMetrics } from './ops/write-metrics.js';
import { AfterAnswer } from './shared/after-answer.js';
import { BoundedCache } from './shared/bounded-cache.js';
import { AppError } from './shared/errors.js';
import { errorPayload } from './wire/error-render.js';
import type { Deps } from './store/deps.js';
import type { AccountDeps } from './portal-users/portal-auth.service.js';

/**
 * The composition root: the services and caches of one app, built once when the app is built
 * (src/app.ts) and handed to the routes as `app.services`. Nothing of this lives in module
 * state, so two apps in one process (as the tests run them) share nothing.
 */
export interface Services {
  /** Authentication of tills and the tokens of operations that move value. */
  readonly terminals: TerminalServices;
  /** Balance bookings of cards (the tills' and the portal's), with the app's card cache. */
  readonly cards: CardDeps;
  /** The tills' balance bookings: the cards', authorised for the terminal that sends them. */
  readonly tillCards: TillBookingDeps;
  readonly baskets: BasketDeps;
  /** Checkout v1: orders, balances, reservations (shares the rule sets with baskets). */
  readonly checkout: CheckoutDeps;
  /** Sends what the outbox holds; started with the server (src/app.ts). */
  readonly outbox: { readonly dispatcher: OutboxDispatcher };
  /** Where a receipt's content comes from, per kind of sale. */
  readonly receipts: ReceiptDeps;
  readonly notifications: NotificationServices;
  /** Portal users and their sessions (src/portal-users/). */
  readonly accounts: AccountDeps;
  /** The consumer portal's sign-in links, sessions, switches and push subscriptions. */
  readonly consumers: Deps;
  /** Campaigns and loyalty schemes: their definitions' writes. */
  readonly campaigns: Deps;
  /** The operator's and the portal's actions on terminals, developer keys and checkout clients. */
  readonly merchants: Deps;
  /** The portal's read models that depend on the time (src/reports/). */
  readonly reports: Deps;
  /** Webhook registrations and deliveries (checkout v1, the portal's developers page). */
  readonly webhooks: WebhookDeps;
  /** Sortiment bulk uploads: how many run at once (docs/decisions.md, "Sortiment"). */
  readonly sortiment: { readonly bulkSlots: BulkUploadSlots };
  /** What the writers that write with group commit write, for `/metrics` (src/ops/metrics.ts). */
  readonly writes: WriteMetrics;
}

export interface TerminalServices {
  /** DevKey and terminal lookups, with the app's cache of recently authenticated terminals. */
  readonly auth: TerminalAuth;
  /** MD5 and SecurityToken-V2 checks, V2 signatures recorded against replay. */
  readonly signatures: TerminalSignatures;
}

/** Mail and push of the consumer side (docs/decisions.md, "Notifications, receipts and the consumer portal"). */
export interface NotificationServices {
  readonly mailer: Mailer;
  readonly push: PushSender;
  /** Push endpoints over http or on private addresses are accepted only with WEBHOOK_ALLOW_PRIVATE. */
  readonly allowPlainPush: boolean;
  /** Sign-in links written and mailed after the form's answer; the close waits for them (src/app.ts). */
  readonly afterAnswer: AfterAnswer;
}

/**
 * Uploads and grants share the database in batches (group commit): on PostgreSQL up to a quarter
 * of the pool writes baskets at once, and as much grants, leaving the rest for everything else;
 * the embedded database has one connection.
 */
function groupCommitOptions(ctx: AppContext): GroupCommitOptions {
  const concurrency =
    ctx.database.kind === 'pglite' ? 1 : Math.max(1, Math.floor(ctx.config.databasePoolSize / 4));
  return { concurrency, maxBatch: BASKET_BATCH };
}

/** Largest number of uploads or grants written in one batch. */
const BASKET_BATCH = 64;

/**
 * Uploads as grants (above), but a further batch starts while one is being written only once a
 * quarter of a batch waits: the uploads that arrive meanwhile go together in the next batch, whose
 * statement, commit and round trip are paid once for all of them. On PostgreSQL that batch is sent
 * on the writer's pipelined connection behind the one being written, and starts in the database
 * the moment it has committed (docs/decisions.md, "Basket uploads are written with group commit").
 */
function uploadWriterOptions(ctx: AppContext): GroupCommitOptions {
  return { ...groupCommitOptions(ctx), openAt: BASKET_BATCH / 4 };
}

/** The refusals `place_order` decides (src/orders/sql/place_order.sql), as the checkout wire renders them. */

/** Largest number of checkout orders written in one batch. */
const ORDER_BATCH = 32;

/**
 * Orders are written like uploads (group commit; docs/decisions.md, "Orders in one statement"). On
 * PostgreSQL a batch goes at once when none is being written, and a second one behind it on the
 * writer's pipelined connection once half a batch waits: it starts in the database the moment the
 * first has committed, and the orders that arrive meanwhile go in the next. Fewer would make the
 * batch behind small and dear per order; waiting for more would leave the database idle between
 * batches (docs/performance.md). The embedded database: its one connection, one batch at a time.
 */
function orderWriterOptions(ctx: AppContext): OrderWriterOptions {
  const refusals = Object.fromEntries(
    ORDER_REFUSALS.map((name) => {
      const err = new AppError(name);
      const { text } = errorPayload(err, { pos: false, format: 'json' }, null);
      return [name, { status: err.entry.status, body: text }];
    }),
  );
  return {
    concurrency: ctx.database.kind === 'pglite' ? 1 : 2,
    maxBatch: ORDER_BATCH,
    openAt: ORDER_BATCH / 2,
    refusalsJson: JSON.stringify(refusals),
  };
}

/**
 * Single top-ups and withdrawals of the cards' balance requests are written with group commit
 * (docs/decisions.md, "Card withdrawals and top-ups written with group commit"), as orders are:
 * on PostgreSQL a batch at once when none is being written and a second behind it on the writer's
 * pipelined connection once half a batch waits; the embedded database one batch at a time.
 */
function transferWriterOptions(ctx: AppContext): GroupCommitOptions {
  return {
    concurrency: ctx.database.kind === 'pglite' ? 1 : 2,
    maxBatch: TRANSFER_BATCH,
    openAt: TRANSFER_BATCH / 2,
  };
}

/** Largest number of single top-ups and withdrawals written in one batch. */
const TRANSFER_BATCH = 32;

/**
 * What a refused bulk upload is told to wait: about the time a 100,000-article upload takes on
 * the machines measured (docs/performance.md, "Sortiment bulk upload").
 */
const BULK_RETRY_AFTER_SECONDS = 10;

export function createServices(ctx: AppContext): Services {
  const { db } = ctx.database;
  const { config } = ctx;
  // The built campaign index per merchant and rules version, for the 1,000 most recent merchants.
  const ruleSets = new RuleSetCache(db, 1000);
  const receiptSources: ReceiptSource[] = [posBasketReceipts, checkoutOrderReceipts];
  const sources = new Map(receiptSources.map((s) => [s.kind, s]));
  const notifications: NotificationServices = {
    mailer: createMailer({
      smtpUrl: config.smtpUrl,
      dataDir: config.dataDir,
      from: config.mailFrom,
      clock: ctx.clock,
    }),
    push: new PushSender(
      db,
      config.vapidPublicKey && config.vapidPrivateKey
        ? { publicKey: config.vapidPublicKey, privateKey: config.vapidPrivateKey }
        : null,
      config.vapidSubject,
      config.webhookAllowPrivate,
    ),
    allowPlainPush: config.webhookAllowPrivate,
    afterAnswer: new AfterAnswer(),
  };
  // One handler per outbox topic.
  const handlers: OutboxHandler[] = [
    new WebhookDeliveryHandler(db, ctx.clock, { allowPrivate: config.webhookAllowPrivate }),
    new PurchaseNotificationHandler({
      db,
      mailer: notifications.mailer,
      push: notifications.push,
      sources,
      publicBaseUrl: config.publicBaseUrl,
    }),
    new TierChangeHandler({
      db,
      mailer: notifications.mailer,
      push: notifications.push,
      publicBaseUrl: config.publicBaseUrl,
    }),
    new WelcomeMailHandler({
      db,
      clock: ctx.clock,
      mailer: notifications.mailer,
      push: notifications.push,
      publicBaseUrl: config.publicBaseUrl,
    }),
  ];
  const dispatcher = new OutboxDispatcher({
    db,
    clock: ctx.clock,
    handlers,
    pollMs: config.outboxPollMs,
    retryScheduleMs: config.outboxRetryScheduleMs,
  });
  const terminals: TerminalServices = {
    auth: new TerminalAuth(db, ctx.clock, createTerminalCache()),
    signatures: new TerminalSignatures(db, ctx.clock),
  };
  // What most use cases work with: the database and the clock (src/store/deps.ts).
  const deps: Deps = { db, clock: ctx.clock };
  const writes = new WriteMetrics();
  const cards: CardDeps = {
    ...deps,
    cache: createCardCache(),
    transfers: new TransferWriter(ctx.database, {
      ...transferWriterOptions(ctx),
      observer: writes.observer('card_transfers'),
    }),
  };
  return {
    accounts: { ...deps, passwordCost: config.portalPasswordCost },
    consumers: deps,
    campaigns: deps,
    merchants: deps,
    reports: deps,
    webhooks: { ...deps, allowPrivate: config.webhookAllowPrivate },
    terminals,
    cards,
    tillCards: { cards, terminals: terminals.auth },
    outbox: { dispatcher },
    // Receipts and the consumer's purchases decide no money: a replica serves them when there is
    // one (DATABASE_READ_URL); a receipt not there yet is looked up on the leader (receipts.routes).
    receipts: { db: ctx.database.read, clock: ctx.clock, sources },
    notifications,
    writes,
    sortiment: {
      bulkSlots: new BulkUploadSlots({
        perTerminal: config.bulkUploadsPerTerminal,
        perProcess: config.bulkUploadsPerProcess,
        retryAfterSeconds: BULK_RETRY_AFTER_SECONDS,
      }),
    },
    baskets: {
      db,
      clock: ctx.clock,
      writer: new BasketWriter(ctx.database, {
        ...uploadWriterOptions(ctx),
        observer: writes.observer('basket_uploads'),
      }),
      grants: new GrantWriter(db, { ...groupCommitOptions(ctx), observer: writes.observer('basket_grants') }),
      ruleSets,
      nudgeOutbox: () => dispatcher.nudge(),
    },
    checkout: {
      db,
      clock: ctx.clock,
      ruleSets,
      publicBaseUrl: config.publicBaseUrl,
      liabilityAccounts: new Map(),
      afterCommit: () => dispatcher.nudge(),
      // A few seconds: an order's write re-checks the client, every other route looks it up afresh.
      clients: new BoundedCache(10_000, 5_000),
      menus: new MenuCache(db, 1000),
      orders: new OrderWriter(ctx.database, {
        ...orderWriterOptions(ctx),
        observer: writes.observer('checkout_orders'),
      }),
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
