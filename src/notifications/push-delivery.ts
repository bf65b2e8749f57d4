import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import { removePushSubscription } from './consumer.store.js';
import type { PushSender, PushTarget } from './push.js';

/**
 * Sends one message to each of a consumer's subscriptions and says, per subscription, what
 * happened ('sent', 'gone', 'error: ...'). A push service that answers 404 or 410 ended the
 * subscription: it is removed, so that no later message goes there.
 */
export async function pushToSubscriptions(
  db: Kysely<DB>,
  push: PushSender,
  subscriptions: readonly (PushTarget & { readonly id: number })[],
  payload: string,
  stop?: AbortSignal,
): Promise<string[]> {
  const results: string[] = [];
  for (const sub of subscriptions) {
    const result = await push.send(sub, payload, stop);
    if (result === 'gone') await removePushSubscription(db, sub.id);
    results.push(typeof result === 'string' ? result : `error: ${result.error}`);
  }
  return results;
}
