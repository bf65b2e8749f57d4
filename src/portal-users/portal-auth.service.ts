import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import {
  type PortalLang,
  type PortalRole,
  type SessionRow,
  countUsers,
  deleteSession,
  findSession,
  findUserByEmail,
  insertSession,
  insertUser,
  recordFailure,
  recordSignIn,
} from './portal-user.store.js';

/** Sign-in rules of the portal (docs/decisions.md "Merchant portal"). */
export const MAX_FAILED_SIGN_INS = 5;
export const LOCK_OUT_MS = 15 * 60_000;
export const SESSION_MS = 12 * 3_600_000;
export const MIN_PASSWORD_LENGTH = 10;

export type Session = SessionRow;

/** What the portal's accounts work with: the database, the clock and scrypt's N for new passwords. */
export interface AccountDeps extends Deps {
  readonly passwordCost: number;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** E-mails are kept as typed, but trimmed and in lower case: `Anna@Cafe.example ` signs in as anna@cafe.example. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Creates a portal user of a merchant. The merchant's first user is an owner unless a role is
 * given; later users are staff unless a role is given.
 */
export async function createPortalUser(
  { db, clock, passwordCost }: AccountDeps,
  merchantId: number,
  input: { email: string; password: string; role?: PortalRole; lang?: PortalLang },
): Promise<{ id: number; email: string; role: PortalRole }> {
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new AppError('portalPasswordTooShort');
  const email = normaliseEmail(input.email);
  const role = input.role ?? ((await countUsers(db, merchantId)) === 0 ? 'owner' : 'staff');
  const id = await insertUser(
    db,
    {
      merchantId,
      email,
      passwordHash: await hashPassword(input.password, passwordCost),
      role,
      lang: input.lang ?? null,
    },
    clock.nowMs(),
  );
  if (id === null) throw new AppError('portalUserExists');
  return { id, email, role };
}

/**
 * Signs in: answers a new session token (for the cookie) and its CSRF token. Wrong e-mail and
 * wrong password answer alike (3000); the fifth failure in a row locks the account for 15
 * minutes (3001), during which even the right password is refused.
 */
export async function signIn(
  { db, clock, passwordCost }: AccountDeps,
  email: string,
  password: string,
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const nowMs = clock.nowMs();
  const user = await findUserByEmail(db, normaliseEmail(email));
  if (!user) {
    await verifyPassword(password, dummyHash(passwordCost));
    throw new AppError('portalSignInFailed');
  }
  if (user.lockedUntil && user.lockedUntil.getTime() > nowMs) throw new AppError('portalLockedOut');
  if (!(await verifyPassword(password, user.passwordHash))) {
    await recordFailure(db, user.id, MAX_FAILED_SIGN_INS, new Date(nowMs + LOCK_OUT_MS));
    const locked = user.failedSignIns + 1 >= MAX_FAILED_SIGN_INS;
    throw new AppError(locked ? 'portalLockedOut' : 'portalSignInFailed');
  }
  await recordSignIn(db, user.id, new Date(nowMs));
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(nowMs + SESSION_MS);
  await insertSession(db, {
    tokenSha256: tokenHash(token),
    userId: user.id,
    merchantId: user.merchantId,
    csrfToken,
    now: new Date(nowMs),
    expiresAt,
  });
  return { token, csrfToken, expiresAt };
}

export function sessionOf({ db, clock }: Deps, token: string): Promise<Session | null> {
  return findSession(db, tokenHash(token), new Date(clock.nowMs()));
}

export function signOut({ db, clock }: Deps, token: string): Promise<void> {
  return deleteSession(db, tokenHash(token), new Date(clock.nowMs()));
}
