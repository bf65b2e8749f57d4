import { Type } from 'typebox';
import { BALANCE_TRANSACTION_KINDS, BALANCE_TRANSACTION_STATUSES } from '../orders/balance-events.js';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../outbox/dispatcher.js';
import { WEBHOOK_EVENTS } from '../webhooks/webhook.store.js';
import { Nullable } from '../wire/schemas.js';

/**
 * The events a webhook receives, as the OpenAPI document's `webhooks` section describes them
 * (docs/decisions.md, "Examples and webhooks in the reference"). The payload is built by the SQL
 * function `checkout_status_changed` only (src/orders/sql/checkout_status_changed.sql), for the
 * order statements and the use cases alike; every delivery a test receives is checked against this
 * schema (test/support/webhook-receiver.ts), so the two cannot drift apart unnoticed.
 */

export const WebhookEventData = Type.Object(
  {
    transactionId: Type.String({ description: 'The balance transaction whose status changed.' }),
    sequence: Type.Integer({
      minimum: 1,
      description:
        "The event's place among the events of its transaction (1, 2, ...): keep the highest seen, ignore lower ones.",
    }),
    kind: Type.String({ enum: [...BALANCE_TRANSACTION_KINDS], description: 'What the transaction is.' }),
    status: Type.String({ enum: [...BALANCE_TRANSACTION_STATUSES], description: 'Its status now.' }),
    previousStatus: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: [...BALANCE_TRANSACTION_STATUSES, null],
      description: 'The status before; null for a new transaction.',
    }),
    amount: Type.Integer({ description: 'Amount of the transaction. Minor units.' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217.' }),
    profileReference: Nullable(
      Type.String({ description: 'The card id or one-time password the transaction was made with.' }),
    ),
    refundableAmount: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "On a refund: what the order's further refunds may still give back. Minor units.",
      }),
    ),
    basketId: Nullable(Type.String({ description: 'The order of a charge or refund; null otherwise.' })),
  },
  { title: 'WebhookEventData', additionalProperties: false },
);

export const WebhookEvent = Type.Object(
  {
    type: Type.String({ enum: [...WEBHOOK_EVENTS], description: 'The event the webhook registered for.' }),
    timestamp: Type.String({ description: 'When the change happened (ISO 8601).' }),
    data: WebhookEventData,
  },
  { title: 'WebhookEvent', additionalProperties: false },
);

/** The event schemas as components of the document (`WebhookEvent` refers to `WebhookEventData`). */
export function webhookComponents(): Record<string, unknown> {
  return {
    WebhookEventData,
    WebhookEvent: {
      ...WebhookEvent,
      properties: { ...WebhookEvent.properties, data: { $ref: '#/components/schemas/WebhookEventData' } },
    },
  };
}

/** "5 s, 5 min, 30 min, 2 h": the waits between attempts, as people read them. */
export function describeWaits(scheduleMs: readonly number[]): string {
  const one = (ms: number) =>
    ms % 3_600_000 === 0
      ? `${ms / 3_600_000} h`
      : ms % 60_000 === 0
        ? `${ms / 60_000} min`
        : `${ms / 1000} s`;
  return scheduleMs.map(one).join(', ');
}

const totalHours = Math.round(DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0) / 3_600_000);

const DELIVERY = `Sent as \`POST\` with a JSON body to the URL of every webhook of the merchant registered for the event, signed the Standard Webhooks way:

- \`webhook-id\`: the message id, the same on every attempt (deduplicate by it);
- \`webhook-timestamp\`: Unix seconds of the attempt;
- \`webhook-signature\`: \`v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">\`, keyed with the bytes the
  webhook's secret encodes after \`whsec_\`. Verify over the body bytes as received, before parsing.

A 2xx answer is a delivery. Anything else, a redirect or no answer within 10 s is retried after ${describeWaits(DEFAULT_RETRY_SCHEDULE_MS)} (${DEFAULT_RETRY_SCHEDULE_MS.length + 1} attempts over about ${totalHours} h); then the delivery is given up. Delivery is at least once.`;

const headerParameter = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

/** The `webhooks` section of the OpenAPI document: one entry per event. */
export function webhookDocuments(examples: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: 'transactionStatusChanged',
          summary: 'A balance transaction changed its status',
          description: `Top-up \`completed\`; charge \`completed\`, then \`refunded\`; refund \`completed\`; reservation \`active\`, then \`used\` or \`cancelled\` (an expired reservation sends nothing).\n\n${DELIVERY}`,
          tags: ['Checkout'],
          parameters: [
            headerParameter(
              'webhook-id',
              'The message id, the same on every attempt: `msg_` and 24 random base32 characters.',
              'msg_k3vq7x2mfa5tb4wnzr6hjc2d',
            ),
            headerParameter('webhook-timestamp', 'Unix seconds of the attempt.', '1772451000'),
            headerParameter(
              'webhook-signature',
              'One or more space-separated `v1,<base64 HMAC-SHA256>`.',
              'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
            ),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/WebhookEvent' },
                ...(examples[event] === undefined ? {} : { example: examples[event] }),
              },
            },
          },
          responses: {
            '2XX': { description: 'Received; the delivery is done.' },
            default: { description: 'Anything else: the delivery is attempted again later.' },
          },
          security: [],
        },
      },
    ]),
  );
}
