import { randomFillSync, randomUUID } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/**
 * `bytes` random bytes (at most 64) from the system's cryptographic generator, as base64url text.
 * The bytes come from a pool refilled 4 KiB at a time, as Node's `randomUUID` caches its entropy:
 * one call into the generator per 256 ids of 16 bytes instead of one per id, on the order path's
 * hot loop. Every byte is handed out once.
 */
export function randomBase64Url(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 64)
    throw new RangeError(`randomBase64Url: ${bytes} bytes`);
  if (next + bytes > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const text = pool.toString('base64url', next, next + bytes);
  next += bytes;
  return text;
}

/**
 * A UUID of version 7 (RFC 9562) as 32 lowercase hex digits: the Unix time `nowMs` in milliseconds
 * (48 bits) first, then 74 random bits (`randomUUID`'s, its version digit made 7). Ids that a table
 * keeps an index of, made at the pace of the orders, grow with time: each new index entry goes to
 * the last page of the index, which is in memory, instead of to a random page of an index that
 * outgrows memory as the table grows (docs/decisions.md, "Ids that grow with time").
 */
export function timeOrderedHex(nowMs: number): string {
  return timeOrderedUuid(nowMs).replace(/-/g, '');
}

/** The Unix time `nowMs` in milliseconds as 12 lowercase hex digits (48 bits), which sort as the times do. */
export function timeHex(nowMs: number): string {
  const ms = Math.trunc(nowMs);
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= 2 ** 48) throw new RangeError(`timeHex: ${nowMs}`);
  return ms.toString(16).padStart(12, '0');
}

/**
 * `timeOrderedHex` in the usual form of a UUID (8-4-4-4-12 hex digits): the time in place of
 * `randomUUID`'s first twelve digits, its version digit (the fifteenth character) made 7.
 */
export function timeOrderedUuid(nowMs: number): string {
  const time = timeHex(nowMs);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
