import { Type } from 'typebox';
import { Nullable } from '../schemas.js';

/**
 * A webhook delivery with every attempt, as the merchant portal and the checkout API both show it
 * (src/webhooks/webhook-deliveries.ts), under each interface's own title.
 */
export function webhookDeliverySchema(title: string) {
  return Type.Object(
    {
      id: Type.Integer({ description: 'The delivery’s number (retry or redeliver it by this number).' }),
      messageId: Type.String({
        description: 'The delivery’s `webhook-id` as the receiver sees it: `msg_` and 24 random characters.',
      }),
      webhookId: Type.String(),
      event: Type.Object({
        type: Type.String(),
        timestamp: Type.String({ format: 'date-time' }),
        data: Type.Record(Type.String(), Type.Unknown()),
      }),
      status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')], {
        description: 'pending (waiting for its next attempt), delivered, or dead (given up).',
      }),
      nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
      lastError: Nullable(Type.String()),
      createdAt: Type.String({ format: 'date-time' }),
      deliveredAt: Nullable(Type.String({ format: 'date-time' })),
      attempts: Type.Array(
        Type.Object({
          attempt: Type.Integer({ minimum: 1 }),
          startedAt: Type.String({ format: 'date-time' }),
          finishedAt: Type.String({ format: 'date-time' }),
          ok: Type.Boolean(),
          error: Nullable(Type.String()),
          detail: Nullable(
            Type.Record(Type.String(), Type.Unknown(), {
              description: 'What the target answered (its HTTP status).',
            }),
          ),
        }),
        { description: 'Every attempt, oldest first.' },
      ),
    },
    { title },
  );
}
