import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { type PortalSession, ownerAndStaff, portalCall } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Customer {
  profileId: number;
  fullName: string | null;
  email: string | null;
  language: string | null;
  balanceMinor: number;
  cards: { tokenId: string; tokenType: string; state: string }[];
}

/**
 * docs/decisions.md, "Enrolling a customer in the portal": owners and staff enrol a customer at the
 * counter, with a card when one is given, and link a card to a customer; the profile and the card's
 * link are made together or not at all, the form sent twice makes one customer, and one address is
 * one customer of the merchant. docs/decisions.md, "A customer's name and language changed in the
 * portal": owners and staff set both later, and a customer keeps a name or an address.
 */
describe.each(databases)('enrolling a customer and linking a card in the portal (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;
  let otherOwner: PortalSession;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    ({ owner, staff } = await ownerAndStaff(
      t,
      term.serviceUserName,
      { owner: `owner-${kind}@enrolment.test`, staff: `staff-${kind}@enrolment.test` },
      PASSWORD,
    ));
    ({ owner: otherOwner } = await ownerAndStaff(
      t,
      other.serviceUserName,
      { owner: `owner-${kind}@other-enrolment.test`, staff: `staff-${kind}@other-enrolment.test` },
      PASSWORD,
    ));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const enrol = (body: Record<string, unknown>, s: PortalSession = staff) =>
    portalCall(t, s, 'POST', '/profiles', { requestId: randomUUID(), ...body });
  const customer = async (id: number, s: PortalSession = owner) => {
    const res = await portalCall(t, s, 'GET', `/profiles/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Customer;
  };
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  /** What a refused request must leave as it was: the merchants' profiles, accounts and cards. */
  const counts = async () => {
    const db = t.database.db;
    const [profiles, accounts, cards] = await Promise.all([
      db.selectFrom('profiles').select(db.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      db.selectFrom('ledger_accounts').select(db.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      db
        .selectFrom('cards')
        .select(db.fn.countAll<string>().as('n'))
        .where('profile_id', 'is not', null)
        .executeTakeFirstOrThrow(),
    ]);
    return { profiles: Number(profiles.n), accounts: Number(accounts.n), linkedCards: Number(cards.n) };
  };

  it('staff enrol a customer with a new card: the card is a customer card of theirs, and who enrolled them is kept', async () => {
    const card = unique('K');
    const email = `${unique('jana')}@example.org`;
    const res = await enrol({ fullName: 'Jana Weber', email, language: 'de', tokenId: card });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json() as { id: number };
    const c = await customer(id);
    expect(c).toMatchObject({ fullName: 'Jana Weber', email, balanceMinor: 0 });
    expect(c.cards).toEqual([{ tokenId: card, tokenType: 'customer', state: 'registered' }]);
    const row = await t.database.db
      .selectFrom('profiles as p')
      .innerJoin('portal_users as u', 'u.id', 'p.created_by_portal_user_id')
      .select(['u.email', 'p.language'])
      .where('p.id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email: `staff-${kind}@enrolment.test`, language: 'de' });
    // The till knows the consumer by the card from now on.
    const cardView = await portalCall(t, staff, 'GET', `/cards/${card}`);
    expect((cardView.json() as { holder: { profileId: number } | null }).holder?.profileId).toBe(id);
  });

  it('a name alone or an address alone is enough; neither, or only blanks, is refused and makes nothing', async () => {
    expect((await enrol({ fullName: '  Ohne Adresse  ' })).statusCode).toBe(201);
    expect((await enrol({ email: `${unique('only')}@example.org` })).statusCode).toBe(201);
    const before = await counts();
    for (const body of [{}, { fullName: '   ' }, { fullName: '', tokenId: unique('K') }]) {
      const res = await enrol(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const bad = await enrol({ fullName: 'X', email: 'not an address' });
    expect(bad.statusCode).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('the form sent twice, one after the other or at the same moment, makes one customer', async () => {
    const email = `${unique('twice')}@example.org`;
    const body = { fullName: 'Max Doppelt', email, tokenId: unique('K'), requestId: randomUUID() };
    const answers = await Promise.all([enrol(body), enrol(body), enrol(body, owner)]);
    answers.push(await enrol(body));
    const ids = answers.map((res) => {
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: number }).id;
    });
    expect(new Set(ids).size).toBe(1);
    const rows = await t.database.db.selectFrom('profiles').select('id').where('email', '=', email).execute();
    expect(rows).toEqual([{ id: ids[0] }]);
  });

  it('the form sent again after the customer was changed (name corrected, card released) still answers that customer; other fields are still refused', async () => {
    const card = unique('K');
    const body = {
      fullName: 'Jnas Müler',
      email: `${unique('nachher')}@example.org`,
      language: 'de',
      tokenId: card,
      requestId: randomUUID(),
    };
    const first = await enrol(body);
    expect(first.statusCode, first.body).toBe(201);
    const { id } = first.json() as { id: number };
    expect(
      (
        await portalCall(t, staff, 'PUT', `/profiles/${id}/details`, {
          fullName: 'Jonas Müller',
          language: 'en',
        })
      ).statusCode,
    ).toBe(200);
    const disposed = await tokens(term).dispose(card);
    expect(disposed.statusCode, disposed.body).toBe(200);
    const before = await counts();
    const again = await enrol(body);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toEqual({ id });
    expect(await counts()).toEqual(before);
    const other = await enrol({ ...body, fullName: 'Jemand Anderes' });
    expect(other.statusCode, other.body).toBe(409);
    expect(other.json().error.code).toBe('request_id_reused');
  });

  it('a customer enrolled before requests were kept is compared with the customer as they are', async () => {
    const body = { fullName: 'Vorher Angelegt', requestId: randomUUID() };
    const { id } = (await enrol(body)).json() as { id: number };
    await t.database.db
      .updateTable('profiles')
      .set({ portal_request_fingerprint: null })
      .where('id', '=', id)
      .execute();
    expect((await enrol(body)).json()).toEqual({ id });
    expect((await enrol({ ...body, fullName: 'Anders' })).statusCode).toBe(409);
  });

  it('the same requestId with other fields is refused and makes nothing', async () => {
    const requestId = randomUUID();
    expect((await enrol({ fullName: 'Erste Anfrage', requestId })).statusCode).toBe(201);
    const before = await counts();
    const res = await enrol({ fullName: 'Zweite Anfrage', requestId });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error.code).toBe('request_id_reused');
    expect(await counts()).toEqual(before);
  });

  it("an address another of the merchant's customers has, in any case, is refused naming that customer; another merchant's customer does not count", async () => {
    const email = `${unique('anna')}@example.org`;
    const first = await enrol({ fullName: 'Anna Schmidt', email });
    const firstId = (first.json() as { id: number }).id;
    const before = await counts();
    const again = await enrol({
      fullName: 'Anna S.',
      email: `  ${email.toUpperCase()} `,
      tokenId: unique('K'),
    });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'profile_email_taken',
      details: { profileId: firstId },
    });
    expect(await counts()).toEqual(before);
    // At the same moment: one of the two is made.
    const twin = `${unique('zwilling')}@example.org`;
    const both = await Promise.all([enrol({ email: twin }), enrol({ email: twin })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect((await enrol({ fullName: 'Anna', email }, otherOwner)).statusCode).toBe(201);
  });

  it('a card linked to another customer, or locked, is refused: no customer is left behind', async () => {
    const card = unique('K');
    expect((await enrol({ fullName: 'Besitzerin', tokenId: card })).statusCode).toBe(201);
    const locked = unique('K');
    await tokens(term).register(locked);
    expect((await tokens(term).lock(locked)).statusCode).toBe(200);
    const before = await counts();
    const taken = await enrol({
      fullName: 'Zweiter',
      email: `${unique('zweiter')}@example.org`,
      tokenId: card,
    });
    expect(taken.statusCode, taken.body).toBe(409);
    expect(taken.json().error.code).toBe('conflict');
    const lockedAnswer = await enrol({ fullName: 'Dritter', tokenId: locked });
    expect(lockedAnswer.statusCode, lockedAnswer.body).toBe(400);
    expect(lockedAnswer.json().error.code).toBe('card_locked');
    expect(await counts()).toEqual(before);
    await expectLedgerSound(t);
  });

  it("a card used without a customer is linked later: its balance moves to the customer's, and the card pays from it", async () => {
    const card = unique('K');
    await tokens(term).register(card);
    expect((await tokens(term).add(card, '12.30')).statusCode).toBe(200);
    const made = await enrol({ fullName: 'Später Verknüpft' });
    const id = (made.json() as { id: number }).id;
    const linked = await portalCall(t, staff, 'POST', `/profiles/${id}/cards`, { tokenId: ` ${card} ` });
    expect(linked.statusCode, linked.body).toBe(200);
    const c = linked.json() as Customer;
    expect(c.balanceMinor).toBe(1_230);
    expect(c.cards.map((x) => x.tokenId)).toEqual([card]);
    // The move is the portal's, not the operator's.
    const merge = await t.database.db
      .selectFrom('ledger_transfers')
      .select(['authorised_by', 'amount_minor'])
      .where('kind', '=', 'merge')
      .where('transaction_id', 'like', 'merge:%')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(merge).toMatchObject({ authorised_by: 'portal' });
    expect(Number(merge.amount_minor)).toBe(1_230);
    // Linked again: nothing changes.
    const again = await portalCall(t, staff, 'POST', `/profiles/${id}/cards`, { tokenId: card });
    expect((again.json() as Customer).balanceMinor).toBe(1_230);
    const withdrawn = await tokens(term).withdraw(card, '2.30');
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect((await customer(id)).balanceMinor).toBe(1_000);
    // A second, new card of the same customer pays from the same balance.
    const second = unique('K');
    expect(
      (await portalCall(t, owner, 'POST', `/profiles/${id}/cards`, { tokenId: second })).statusCode,
    ).toBe(200);
    expect((await customer(id)).cards.map((x) => x.tokenId)).toEqual([card, second]);
    await expectLedgerSound(t);
  });

  it("a linked card's loads and payments from before the link stay in the customer's balance history, the balance after each the customer's money on both", async () => {
    // Two anonymous cards used at the till, then both linked to a customer who has no card yet.
    const first = unique('K');
    const second = unique('K');
    for (const c of [first, second]) await tokens(term).register(c);
    expect((await tokens(term).add(first, '20.00')).statusCode).toBe(200);
    expect((await tokens(term).withdraw(first, '5.60')).statusCode).toBe(200);
    expect((await tokens(term).add(second, '10.00')).statusCode).toBe(200);
    expect((await tokens(term).withdraw(first, '2.40')).statusCode).toBe(200);
    const id = ((await enrol({ fullName: 'Zwei Karten' })).json() as { id: number }).id;
    for (const c of [first, second]) {
      expect((await portalCall(t, staff, 'POST', `/profiles/${id}/cards`, { tokenId: c })).statusCode).toBe(
        200,
      );
    }
    expect((await tokens(term).withdraw(second, '7.90')).statusCode).toBe(200);
    type Movement = { kind: string; amountMinor: number; balanceAfterMinor: number; channel: string };
    const all: Movement[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const res = await portalCall(t, owner, 'GET', `/profiles/${id}/balanceHistory${q}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { data: Movement[]; nextCursor: string | null };
      all.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(all.map((m) => [m.kind, m.amountMinor, m.balanceAfterMinor, m.channel])).toEqual([
      ['withdrawal', -790, 1_410, 'till'],
      ['withdrawal', -240, 2_200, 'till'],
      ['top_up', 1_000, 2_440, 'till'],
      ['withdrawal', -560, 1_440, 'till'],
      ['top_up', 2_000, 2_000, 'till'],
    ]);
    const c = await customer(id);
    expect(c.balanceMinor).toBe(1_410);
    // The card's page reads the same history: the balance it pays from is the customer's.
    const card = await portalCall(t, owner, 'GET', `/cards/${first}/balanceHistory?limit=10`);
    expect((card.json() as { data: Movement[] }).data.map((m) => m.balanceAfterMinor)).toEqual([
      1_410, 2_200, 2_440, 1_440, 2_000,
    ]);
    await expectLedgerSound(t);
  });

  it("another merchant's customer is unknown, and a card linked elsewhere is refused", async () => {
    const mine = (await enrol({ fullName: 'Lukas Hoffmann' })).json() as { id: number };
    const foreign = await portalCall(t, otherOwner, 'POST', `/profiles/${mine.id}/cards`, {
      tokenId: unique('K'),
    });
    expect(foreign.statusCode, foreign.body).toBe(404);
    const card = unique('K');
    expect((await enrol({ fullName: 'Eva Berger', tokenId: card })).statusCode).toBe(201);
    const res = await portalCall(t, staff, 'POST', `/profiles/${mine.id}/cards`, { tokenId: card });
    expect(res.statusCode, res.body).toBe(409);
    expect((await customer(mine.id)).cards).toEqual([]);
  });

  it('without the CSRF token nothing is made', async () => {
    const before = await counts();
    const res = await portalCall(t, { cookie: staff.cookie }, 'POST', '/profiles', {
      fullName: 'Ohne Token',
      requestId: randomUUID(),
    });
    expect(res.statusCode).toBe(403);
    expect(await counts()).toEqual(before);
  });

  /** The profile's columns a change of name and language may touch, read from the database. */
  const stored = async (id: number) =>
    t.database.db
      .selectFrom('profiles')
      .select(['full_name', 'email', 'language'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const setDetails = (id: number, body: Record<string, unknown>, s: PortalSession = staff) =>
    portalCall(t, s, 'PUT', `/profiles/${id}/details`, body);

  it("staff set a customer's name and the language of their mails; the customer's page answers both", async () => {
    const email = `${unique('tippfehler')}@example.org`;
    const { id } = (await enrol({ fullName: 'Jnas Müler', email, language: 'en' })).json() as { id: number };
    const res = await setDetails(id, { fullName: '  Jonas Müller ', language: 'de' });
    expect(res.statusCode, res.body).toBe(200);
    const answered = res.json() as Customer;
    expect(answered).toMatchObject({ profileId: id, fullName: 'Jonas Müller', email, language: 'de' });
    expect(await customer(id)).toMatchObject({ fullName: 'Jonas Müller', language: 'de' });
    expect(await stored(id)).toEqual({ full_name: 'Jonas Müller', email, language: 'de' });
    // The same request again changes nothing and answers the same.
    const again = await setDetails(id, { fullName: 'Jonas Müller', language: 'de' }, owner);
    expect(again.statusCode, again.body).toBe(200);
    expect(await stored(id)).toEqual({ full_name: 'Jonas Müller', email, language: 'de' });
  });

  it('a name left out or blank is removed from a customer with an address; a language left out leaves it unset', async () => {
    const email = `${unique('ohne-name')}@example.org`;
    const { id } = (await enrol({ fullName: 'Wird Entfernt', email, language: 'de' })).json() as {
      id: number;
    };
    const blank = await setDetails(id, { fullName: '   ', language: 'de' });
    expect(blank.statusCode, blank.body).toBe(200);
    expect(await stored(id)).toEqual({ full_name: null, email, language: 'de' });
    const none = await setDetails(id, {});
    expect(none.statusCode, none.body).toBe(200);
    expect((none.json() as Customer).language).toBeNull();
    expect(await stored(id)).toEqual({ full_name: null, email, language: null });
  });

  it('removing the name of a customer without an address is refused and changes nothing, the language included', async () => {
    const { id } = (await enrol({ fullName: 'Nur Name', language: 'en' })).json() as { id: number };
    for (const body of [{ language: 'de' }, { fullName: '  ', language: 'de' }]) {
      const res = await setDetails(id, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    expect(await stored(id)).toEqual({ full_name: 'Nur Name', email: null, language: 'en' });
  });

  it("a language the mails are not written in or a name too long is refused; an address sent along changes nothing; another merchant's customer is unknown; without the CSRF token nothing changes", async () => {
    const { id } = (await enrol({ fullName: 'Bleibt So', language: 'de' })).json() as { id: number };
    for (const body of [{ fullName: 'X', language: 'fr' }, { fullName: 'x'.repeat(201) }]) {
      const res = await setDetails(id, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    // Unknown fields are dropped (docs/decisions.md, "Field names"): staff cannot change the address here.
    const along = await setDetails(id, { fullName: 'Bleibt So', language: 'de', email: 'fremd@example.org' });
    expect(along.statusCode, along.body).toBe(200);
    expect((along.json() as Customer).email).toBeNull();
    const foreign = await setDetails(id, { fullName: 'Fremd' }, otherOwner);
    expect(foreign.statusCode, foreign.body).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');
    const unknown = await setDetails(2_000_000_000, { fullName: 'Niemand' });
    expect(unknown.statusCode, unknown.body).toBe(404);
    const noToken = await portalCall(t, { cookie: staff.cookie }, 'PUT', `/profiles/${id}/details`, {
      fullName: 'Ohne Token',
    });
    expect(noToken.statusCode).toBe(403);
    expect(await stored(id)).toEqual({ full_name: 'Bleibt So', email: null, language: 'de' });
  });
});
