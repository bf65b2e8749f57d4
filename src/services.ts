import type { BasketDeps } from './baskets/basket-deps.js';
import { posBasketReceipts } from './baskets/basket-receipt.js';
import { BasketWriter } from './baskets/basket-writer.js';
import type { GroupCommitOptions } from './baskets/group-commit.js';
import { GrantWriter } from './baskets/grant-writer.js';
import { RuleSetCache } from './campaigns/rules.store.js';
import type { AppContext } from './context.js';
import { checkoutOrderReceipts } from './orders/checkout-receipt.js';
import type { CheckoutDeps } from './orders/order.service.js';
import { WebhookDeliveryHandler } from './webhooks/webhook-delivery.js';
import { type Mailer, createMailer } from './notifications/mailer.js';
import { PurchaseNotificationHandler } from './notifications/purchase.handler.js';
import { PushSender } from './notifications/push.js';
import { type OutboxHandler, OutboxDispatcher } from './outbox/dispatcher.js';
import type { ReceiptSource } from './receipts/receipt-view.js';
import type { ReceiptKind } from './store/tables/outbox.js';

/**
 * The composition root: the services and caches of one app, built once when the app is built
 * (src/app.ts) and handed to the routes as `app.services`. Nothing of this lives in module
 * state, so two apps in one process (as the tests run them) share nothing.
 */
export interface Services {
  readonly baskets: BasketDeps;
  /** Checkout v1: orders, balances, reservations (shares the rule sets with baskets). */
  readonly checkout: CheckoutDeps;
  /** Sends what the outbox holds; started with the server (src/app.ts). */
  readonly outbox: { readonly dispatcher: OutboxDispatcher };
  /** Where a receipt's content comes from, per kind of sale. */
  readonly receipts: { readonly sources: ReadonlyMap<ReceiptKind, ReceiptSource> };
  readonly notifications: NotificationServices;
}

/** Mail and push of the consumer side (docs/decisions.md, "Notifications, receipts and the consumer portal"). */
export interface NotificationServices {
  readonly mailer: Mailer;
  readonly push: PushSender;
  /** Push endpoints over http or on private addresses are accepted only with WEBHOOK_ALLOW_PRIVATE. */
  readonly allowPlainPush: boolean;
}

/**
 * Uploads and grants share the database in batches (group commit): on PostgreSQL up to a quarter
 * of the pool writes baskets at once, and as much grants, leaving the rest for everything else;
 * the embedded database has one connection.
 */
function groupCommitOptions(ctx: AppContext): GroupCommitOptions {
  const concurrency =
    ctx.database.kind === 'pglite' ? 1 : Math.max(1, Math.floor(ctx.config.databasePoolSize / 4));
  return { concurrency, maxBatch: 64 };
}

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
  ];
  const dispatcher = new OutboxDispatcher({
    db,
    clock: ctx.clock,
    handlers,
    pollMs: config.outboxPollMs,
    retryScheduleMs: config.outboxRetryScheduleMs,
  });
  return {
    outbox: { dispatcher },
    receipts: { sources },
    notifications,
    baskets: {
      db,
      clock: ctx.clock,
      writer: new BasketWriter(db, groupCommitOptions(ctx)),
      grants: new GrantWriter(db, groupCommitOptions(ctx)),
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
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
