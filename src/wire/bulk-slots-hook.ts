import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.js';
import { type BulkSlot, BulkSlotRefused, type BulkUploadSlots } from '../sortiment/bulk-slots.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The bulk upload's slot, taken before its body is read. */
    bulkSlot: BulkSlot | null;
    /** True once the upload's handler runs: it gives the slot back itself. */
    bulkRunning: boolean;
  }
}

/**
 * Limits how many bulk uploads of a scope run at once (docs/decisions.md, "Sortiment"):
 * an onRequest hook, registered after the scope's authentication (a parent's hooks run first),
 * takes a slot for the caller named by `callerKey` before the body is read, or answers 429 / 1050
 * (the caller's limit) or 503 / 1051 (the process's) with Retry-After. A request that ends before
 * its handler runs (a refused body, a client gone while sending) gives the slot back with its
 * connection; a running upload gives it back when it is done (runWithSlot).
 */
export function registerBulkSlots(
  scope: FastifyInstance,
  slots: BulkUploadSlots,
  callerKey: (request: FastifyRequest) => string,
): void {
  scope.decorateRequest('bulkSlot', null);
  scope.decorateRequest('bulkRunning', false);
  scope.addHook('onRequest', async (request, reply) => {
    let slot: BulkSlot;
    try {
      slot = slots.take(callerKey(request));
    } catch (err) {
      if (err instanceof BulkSlotRefused) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    request.bulkSlot = slot;
    reply.raw.once('close', () => {
      if (!request.bulkRunning) slot.release();
    });
  });
  // Answered (after the handler, or instead of it): the slot is free in any case.
  scope.addHook('onResponse', async (request) => {
    request.bulkSlot?.release();
  });
}

/** Runs the upload holding the request's slot, and gives the slot back when it ends. */
export async function runWithSlot<T>(request: FastifyRequest, upload: () => Promise<T>): Promise<T> {
  const slot = request.bulkSlot;
  // The client went away while its body was read: its slot is free again, nothing is done.
  if (!slot || slot.released) throw new AppError('requestTimeout', 'The client closed the request.');
  request.bulkRunning = true;
  try {
    return await upload();
  } finally {
    slot.release();
  }
}
