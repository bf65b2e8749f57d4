import { randomBytes } from 'node:crypto';
import { AppError } from '../shared/errors.js';
import type { PageRequest } from '../shared/paging.js';
import { hashPassword, verifyPassword } from './password.js';
import {
  type AccountDeps,
  LOCK_OUT_MS,
  MAX_FAILED_SIGN_INS,
  MIN_PASSWORD_LENGTH,
  type Session,
  createPortalUser,
  normaliseEmail,
} from './portal-auth.service.js';
import { newLinkToken } from './password-reset.service.js';
import { type ResetTarget, resetTarget } from './password-reset.store.js';
import { insertInvitedUser, reinvite } from './invitation.store.js';
import { type PortalLang, type PortalRole, countUsers, recordFailure } from './portal-user.store.js';
import {
  type TeamMemberRow,
  listTeam,
  passwordOf,
  removeUser,
  setPassword,
  setRole,
  withOwnersLocked,
} from './portal-team.store.js';

/**
 * The merchant's team (docs/decisions.md, "The team: colleagues and passwords"): owners change
 * their colleagues' roles, set a colleague's password and remove colleagues, never their own; a
 * user changes their own password with the current one. A removal or a new password ends the
 * colleague's sessions at once; a role changes with the colleague's next request.
 */

export interface TeamMember extends TeamMemberRow {
  /** Locked out by failed sign-ins at the moment. */
  readonly locked: boolean;
  /** The signed-in user themselves. */
  readonly you: boolean;
}

/** A page of the team (read with one row past it, as pageOf takes it). */
export async function teamOf(
  { db, clock }: AccountDeps,
  session: Session,
  page: PageRequest,
): Promise<TeamMember[]> {
  const nowMs = clock.nowMs();
  return (await listTeam(db, session.merchantId, page, new Date(nowMs))).map((m) => ({
    ...m,
    locked: m.lockedUntil !== null && m.lockedUntil.getTime() > nowMs,
    you: m.id === session.userId,
  }));
}

/** 429 `invitations_throttled`, its Retry-After the seconds until an invitation leaves the window. */
function invitationsThrottled(waitMs: number): AppError {
  return new AppError('portalInvitationsThrottled', undefined, {
    details: { retryAfterSeconds: Math.ceil(waitMs / 1000) },
  });
}

/** What an owner's invitation made: the colleague, and the link to mail them when no password was given. */
export interface Invitation {
  readonly user: { id: number; email: string; role: PortalRole };
  readonly link: { token: string; target: ResetTarget } | null;
}

/**
 * A new portal user of a merchant (the merchant's first an owner, later ones staff, unless a role is
 * given): with a first password, told to them by whoever adds them, or, without one, invited by
 * e-mail to choose their own with a link (a password nobody knows is set until then, so nothing
 * signs in as them). The link comes back to be mailed; none when nothing is to be mailed.
 */
export async function addPortalUser(
  deps: AccountDeps,
  merchantId: number,
  input: { email: string; password?: string; role?: PortalRole; lang?: PortalLang },
): Promise<Invitation> {
  if (input.password !== undefined) {
    const user = await createPortalUser(deps, merchantId, { ...input, password: input.password });
    return { user, link: null };
  }
  const email = normaliseEmail(input.email);
  const role = input.role ?? ((await countUsers(deps.db, merchantId)) === 0 ? 'owner' : 'staff');
  const { token, tokenSha256 } = newLinkToken();
  const passwordHash = await hashPassword(randomBytes(32).toString('base64url'), deps.passwordCost);
  const user = { merchantId, email, passwordHash, role, lang: input.lang ?? null };
  const id = await insertInvitedUser(deps.db, user, tokenSha256, deps.clock.nowMs());
  if (id === 'taken') throw new AppError('portalUserExists');
  if (typeof id !== 'number') throw invitationsThrottled(id.waitMs);
  // Whom the mail goes to, with the business's name; none if an owner removed them since.
  const target = await resetTarget(deps.db, email);
  return { user: { id, email, role }, link: target ? { token, target } : null };
}

/** An owner adds a colleague, staff unless a role is given (addPortalUser). */
export function inviteColleague(
  deps: AccountDeps,
  session: Session,
  input: { email: string; password?: string; role?: PortalRole; lang?: PortalLang },
): Promise<Invitation> {
  return addPortalUser(deps, session.merchantId, { ...input, role: input.role ?? 'staff' });
}

/** Runs an owner's change to a colleague (never themselves), the merchant's owners locked. */
async function colleagueChange<T>(
  { db }: AccountDeps,
  session: Session,
  colleagueId: number,
  change: Parameters<typeof withOwnersLocked<T>>[4],
): Promise<T> {
  if (colleagueId === session.userId) throw new AppError('portalUserSelf');
  const outcome = await withOwnersLocked(db, session.merchantId, session.userId, colleagueId, change);
  if (outcome === 'not_owner') throw new AppError('portalRoleForbidden');
  if (outcome === 'unknown') throw new AppError('notFound', 'No colleague of yours has this id.');
  return outcome;
}

/**
 * An owner sends a colleague who never signed in a new invitation (the earlier one expired, or
 * never arrived): the link to mail them, within the invitations' limits.
 */
export async function resendInvitation(
  deps: AccountDeps,
  session: Session,
  colleagueId: number,
): Promise<Invitation['link']> {
  const { token, tokenSha256 } = newLinkToken();
  const nowMs = deps.clock.nowMs();
  const outcome = await colleagueChange(deps, session, colleagueId, (trx) =>
    reinvite(trx, colleagueId, tokenSha256, nowMs),
  );
  if (outcome === 'signed_in') throw new AppError('portalColleagueSignedIn');
  if ('waitMs' in outcome) throw invitationsThrottled(outcome.waitMs);
  const target = await resetTarget(deps.db, outcome.sentTo);
  return target ? { token, target } : null;
}

export function changeRole(deps: AccountDeps, session: Session, colleagueId: number, role: PortalRole) {
  return colleagueChange(deps, session, colleagueId, (trx) => setRole(trx, colleagueId, role));
}

export function removeColleague(deps: AccountDeps, session: Session, colleagueId: number) {
  const now = new Date(deps.clock.nowMs());
  return colleagueChange(deps, session, colleagueId, (trx) =>
    removeUser(trx, colleagueId, session.userId, now),
  );
}

/** A colleague's new password, set by an owner (a colleague who forgot theirs): their sessions end. */
export async function setColleaguePassword(
  deps: AccountDeps,
  session: Session,
  colleagueId: number,
  password: string,
): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AppError('portalPasswordTooShort');
  const hash = await hashPassword(password, deps.passwordCost);
  const now = new Date(deps.clock.nowMs());
  await colleagueChange(deps, session, colleagueId, (trx) => setPassword(trx, colleagueId, hash, null, now));
}

/**
 * The user's own new password, given the current one: a wrong one counts towards the lock-out as a
 * failed sign-in does (a session left open on a shared till is no way to guess the password).
 * Every other session of the user ends; the one under `tokenSha256` stays.
 */
export async function changeOwnPassword(
  { db, clock, passwordCost }: AccountDeps,
  session: Session,
  tokenSha256: string,
  current: string,
  next: string,
): Promise<void> {
  const nowMs = clock.nowMs();
  const user = await passwordOf(db, session.userId);
  if (!user) throw new AppError('portalNotSignedIn');
  if (user.lockedUntil && user.lockedUntil.getTime() > nowMs) throw new AppError('portalLockedOut');
  if (!(await verifyPassword(current, user.passwordHash))) {
    await recordFailure(db, session.userId, MAX_FAILED_SIGN_INS, new Date(nowMs + LOCK_OUT_MS));
    const locked = user.failedSignIns + 1 >= MAX_FAILED_SIGN_INS;
    throw new AppError(locked ? 'portalLockedOut' : 'portalCurrentPasswordWrong');
  }
  if (next.length < MIN_PASSWORD_LENGTH) throw new AppError('portalPasswordTooShort');
  const hash = await hashPassword(next, passwordCost);
  await setPassword(db, session.userId, hash, tokenSha256, new Date(clock.nowMs()));
}
