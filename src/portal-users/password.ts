import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are hashed with scrypt (memory-hard): N = 2^15, r = 8, p = 1, 32-byte key, a random
 * 16-byte salt per password. That takes 32 MiB and tens of milliseconds per try on one core
 * (docs/security.md, "Merchant portal"). The parameters are stored with the hash, so they can be
 * raised later without invalidating existing passwords.
 */
export const PASSWORD_COST = 2 ** 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N: n, r, p, maxmem: MAX_MEMORY }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * `scrypt$N$r$p$salt$hash`, salt and hash in base64url. `cost` is N: the service always hashes
 * with PASSWORD_COST (Config.portalPasswordCost has no setting); only tests of other rules pass a
 * lower one (docs/decisions.md, "Tests").
 */
export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost, R, P);
  return ['scrypt', cost, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of this cost no password matches: unknown e-mails cost as much time as known ones. */
export function dummyHash(cost = PASSWORD_COST): string {
  return `scrypt$${cost}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`;
}
