import { AppError } from '../shared/errors.js';
import { abandonIdempotent, beginIdempotent, finishIdempotent } from './idempotency.store.js';
import { type CheckoutCaller, type CheckoutDeps, type OrderInput, placeOrder } from './order.service.js';

/** An order's answer as the idempotency record keeps it: status and text, byte for byte. */
export interface KeptAnswer {
  readonly status: number;
  readonly body: string;
  /** True when it is the answer of an earlier request with the same key. */
  readonly replayed: boolean;
}

/**
 * An order under its Idempotency-Key, in separate statements: the key is taken (or its kept
 * answer replayed), the order placed, and its answer kept for the key. A refusal is the answer to
 * this key too, rendered by the interface (`render`); an unexpected failure frees the key.
 */
export async function placeOrderUnderKey(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
  key: { readonly idempotencyKey: string; readonly bodySha256: string },
  render: (err: AppError) => { readonly status: number; readonly text: string },
): Promise<KeptAnswer> {
  const start = await beginIdempotent(
    deps.db,
    caller.clientId,
    key.idempotencyKey,
    key.bodySha256,
    deps.clock.nowMs(),
  );
  if (start.state === 'replay') return { status: start.status, body: start.body, replayed: true };
  const claimed = { key: key.idempotencyKey, claim: start.claim };
  try {
    return { status: 200, body: await placeOrder(deps, caller, input, claimed), replayed: false };
  } catch (err) {
    if (!(err instanceof AppError)) {
      // Freed when the database answers; otherwise the claim runs out and the key is taken over.
      await abandonIdempotent(deps.db, caller.clientId, key.idempotencyKey, start.claim).catch(
        () => undefined,
      );
      throw err;
    }
    const { status, text } = render(err);
    await finishIdempotent(deps.db, caller.clientId, key.idempotencyKey, start.claim, status, text);
    return { status, body: text, replayed: false };
  }
}
