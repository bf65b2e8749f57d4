import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestBrowser,
  fitsWidth,
  listFits,
  openChromium,
  screenshotDir,
  serve,
} from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import { createSignIn, profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import {
  appWithMail,
  consumerSignIn,
  eventually,
  giftCard,
  profileWithCard,
  purchaseNotificationsOf,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from '../notifications/support.js';
import { type PortalSession, ownerAndStaff, portalCall } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('.test-cache', '.test-cache');

interface Profile {
  email: string | null;
  emailChanges: { oldEmail: string | null; newEmail: string | null; by: string; at: string }[];
}
interface Basket {
  receiptUrl: string | null;
  receiptMail: { kind: string; attempts: number } | null;
}

/**
 * docs/decisions.md, "A customer's e-mail address corrected" and "Sending the receipt again": a
 * receipt refused at a mistyped address reaches the customer once an owner corrects the address and
 * sends the receipt again.
 */
describe.each(databases)(
  "an owner corrects a customer's address and sends the receipt again (%s)",
  (kind) => {
    const app = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000' });
    let t: TestApp;
    let term: Terminal;
    let other: Terminal;
    let owner: PortalSession;
    let staff: PortalSession;
    const ownerEmail = `owner-${kind}@email-correction.test`;
    let browser: TestBrowser;
    let baseUrl = '';

    const basketPath = (basketId: string) =>
      `/baskets/${encodeURIComponent(term.trackingUnitId)}/${encodeURIComponent(basketId)}`;
    const readBasket = async (basketId: string) => {
      const res = await portalCall(t, owner, 'GET', basketPath(basketId));
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Basket;
    };
    const mailOf = (basketId: string, kindIs: string) =>
      eventually(async () => {
        const b = await readBasket(basketId);
        expect(b.receiptMail?.kind).toBe(kindIs);
        return b;
      });
    const sendAgain = (basketId: string, s: PortalSession = owner) =>
      portalCall(t, s, 'POST', `${basketPath(basketId)}/receiptMail`);
    const messages = async (basketId: string) =>
      purchaseNotificationsOf(t, (await readBasket(basketId)).receiptUrl);

    beforeAll(async () => {
      t = app.t;
      term = await setupTerminal(t);
      other = await setupTerminal(t);
      ({ owner, staff } = await ownerAndStaff(
        t,
        term.serviceUserName,
        { owner: ownerEmail, staff: `staff-${kind}@email-correction.test` },
        PASSWORD,
      ));
      baseUrl = await serve(t);
      browser = await openChromium();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('a receipt refused at a mistyped address reaches the customer once the owner corrects it and sends it again', async () => {
      const typo = `${uniqueId('anna')}@exmaple.org`;
      const right = typo.replace('@exmaple.org', '@example.org');
      const { profileId, cardId } = await profileWithCard(t, term, { email: typo });
      app.smtp.unknown.add(typo);
      const basketId = uniqueId('refused');
      await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
      await mailOf(basketId, 'refused');

      const changed = await portalCall(t, owner, 'PUT', `/profiles/${profileId}/email`, { email: right });
      expect(changed.statusCode, changed.body).toBe(200);
      const p = changed.json() as Profile;
      expect(p.email).toBe(right);
      expect(p.emailChanges).toHaveLength(1);
      expect(p.emailChanges[0]).toMatchObject({ oldEmail: typo, newEmail: right, by: ownerEmail });

      const again = await sendAgain(basketId);
      expect(again.statusCode, again.body).toBe(200);
      expect((again.json() as Basket).receiptMail?.kind).toBe('pending');
      const sent = await mailOf(basketId, 'sent');
      const mail = app.smtp.mails.find((m) => m.to && JSON.stringify(m.to).includes(right));
      expect(mail, 'a mail to the corrected address').toBeDefined();
      expect(mail?.text ?? '').toContain(sent.receiptUrl ?? 'no receipt');
      expect(await messages(basketId)).toBe(2);
    });

    it("once the address is right, every refused receipt of the customer is sent again at once, and no one else's", async () => {
      const typo = `${uniqueId('carla')}@exmaple.org`;
      const right = typo.replace('@exmaple.org', '@example.org');
      const { profileId, cardId } = await profileWithCard(t, term, { email: typo });
      const neighbour = await profileWithCard(t, term);
      app.smtp.unknown.add(typo);
      app.smtp.unknown.add(neighbour.email);
      const mine = [uniqueId('carla-1'), uniqueId('carla-2'), uniqueId('carla-3')];
      for (const id of mine)
        await uploadAndGrant(term, id, { consumerIdentToken: cardId }, receiptBasket(false));
      const theirs = uniqueId('neighbour');
      await uploadAndGrant(term, theirs, { consumerIdentToken: neighbour.cardId }, receiptBasket(false));
      for (const id of [...mine, theirs]) await mailOf(id, 'refused');
      const before = await portalCall(t, owner, 'GET', `/profiles/${profileId}`);
      expect((before.json() as { undeliveredReceipts: number }).undeliveredReceipts).toBe(3);

      expect(
        (await portalCall(t, owner, 'PUT', `/profiles/${profileId}/email`, { email: right })).statusCode,
      ).toBe(200);
      const again = await portalCall(t, staff, 'POST', `/profiles/${profileId}/receiptMails`);
      expect(again.statusCode, again.body).toBe(200);
      expect((again.json() as { undeliveredReceipts: number }).undeliveredReceipts).toBe(0);
      for (const id of mine) await mailOf(id, 'sent');
      await eventually(() =>
        expect(app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(right))).toHaveLength(3),
      );
      expect((await readBasket(theirs)).receiptMail?.kind).toBe('refused');
      expect(await messages(theirs)).toBe(1);
      const { profileId: foreign } = await profileWithCard(t, other);
      expect((await portalCall(t, owner, 'POST', `/profiles/${foreign}/receiptMails`)).statusCode).toBe(404);
    });

    it('a change of address ends the /me sessions made with the old one and spends its links', async () => {
      const old = `${uniqueId('dora')}@exmaple.org`;
      const { profileId } = await profileWithCard(t, term, { email: old });
      const session = await consumerSignIn(t, old);
      const [profile] = await profilesByEmail(t.database.db, old);
      if (!profile) throw new Error('no profile');
      const link = await createSignIn(t.database.db, profile, t.clock.nowMs());
      const me = () => t.app.inject({ method: 'GET', url: '/me', headers: { cookie: session.cookie } });
      expect((await me()).body).toContain('data-csrf');

      const res = await portalCall(t, owner, 'PUT', `/profiles/${profileId}/email`, {
        email: old.replace('@exmaple.org', '@example.org'),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await me()).body).not.toContain('data-csrf');
      const used = await t.app.inject({ method: 'GET', url: `/me/sign-in/${link}` });
      expect(used.statusCode).not.toBe(303);
    });

    it('only an owner changes an address; a wrong one or a foreign customer changes nothing', async () => {
      const { profileId, email } = await profileWithCard(t, term);
      const { profileId: foreign } = await profileWithCard(t, other);
      const path = `/profiles/${profileId}/email`;
      const byStaff = await portalCall(t, staff, 'PUT', path, { email: 'someone@example.org' });
      expect([byStaff.statusCode, (byStaff.json() as { error: { code: string } }).error.code]).toEqual([
        403,
        'role_forbidden',
      ]);
      for (const body of [{ email: 'not an address' }, { email: '' }, {}, { email: ['a@b.org'] }]) {
        const res = await portalCall(t, owner, 'PUT', path, body);
        expect(
          [res.statusCode, (res.json() as { error: { code: string } }).error.code],
          JSON.stringify(body),
        ).toEqual([400, 'invalid_request']);
      }
      const theirs = await portalCall(t, owner, 'PUT', `/profiles/${foreign}/email`, {
        email: 'x@example.org',
      });
      expect(theirs.statusCode).toBe(404);
      const same = await portalCall(t, owner, 'PUT', path, { email });
      expect(same.statusCode).toBe(200);
      const p = same.json() as Profile;
      expect([p.email, p.emailChanges]).toEqual([email, []]);
      const foreignNow = await t.admin('GET', `/profiles/${foreign}`);
      expect((foreignNow.json() as { email: string }).email).not.toBe('x@example.org');
    });

    it('an owner may remove an address: the next receipt is not mailed, and nothing is sent again', async () => {
      const { profileId, cardId, email } = await profileWithCard(t, term);
      app.smtp.unknown.add(email);
      const refused = uniqueId('refused-then-removed');
      await uploadAndGrant(term, refused, { consumerIdentToken: cardId }, receiptBasket(false));
      await mailOf(refused, 'refused');
      const res = await portalCall(t, owner, 'PUT', `/profiles/${profileId}/email`, { email: null });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as Profile).emailChanges[0]).toMatchObject({ oldEmail: email, newEmail: null });
      const basketId = uniqueId('no-address');
      await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
      await new Promise((r) => setTimeout(r, 300));
      expect((await readBasket(basketId)).receiptMail).toBeNull();
      const code = (r: { statusCode: number; json(): unknown }) => [
        r.statusCode,
        (r.json() as { error: { code: string } }).error.code,
      ];
      expect(code(await sendAgain(basketId))).toEqual([409, 'receipt_mail_nobody']);
      expect(code(await portalCall(t, owner, 'POST', `/profiles/${profileId}/receiptMails`))).toEqual([
        409,
        'receipt_mail_nobody',
      ]);
      expect(await messages(refused)).toBe(1);
    });

    it('sending again is refused while the mail is on its way, before the grant, and with nobody to notify', async () => {
      const { cardId, email } = await profileWithCard(t, term);
      app.smtp.busy.add(email);
      const waiting = uniqueId('waiting');
      await uploadAndGrant(term, waiting, { consumerIdentToken: cardId }, receiptBasket(false));
      await eventually(async () => expect((await readBasket(waiting)).receiptMail?.attempts).toBe(1));
      const code = async (res: Awaited<ReturnType<typeof sendAgain>>) => [
        res.statusCode,
        (res.json() as { error: { code: string } }).error.code,
      ];
      expect(await code(await sendAgain(waiting))).toEqual([409, 'receipt_mail_pending']);

      const open = uniqueId('open');
      const up = await term.pos('POST', `/baskets/${open}`, {
        query: { consumerIdentToken: cardId },
        body: receiptBasket(false),
      });
      expect(up.statusCode).toBe(200);
      expect(await code(await sendAgain(open))).toEqual([409, 'receipt_missing']);

      const gift = uniqueId('gift');
      await uploadAndGrant(term, gift, { consumerIdentToken: await giftCard(term) }, receiptBasket(false));
      expect(await code(await sendAgain(gift))).toEqual([409, 'receipt_mail_nobody']);

      const cash = uniqueId('cash');
      await uploadAndGrant(term, cash, {}, receiptBasket(false));
      expect(await code(await sendAgain(cash))).toEqual([409, 'receipt_mail_nobody']);

      expect((await sendAgain('no-such-basket')).statusCode).toBe(404);
      const withoutCsrf = await portalCall(
        t,
        { cookie: owner.cookie },
        'POST',
        `${basketPath(gift)}/receiptMail`,
      );
      expect(withoutCsrf.statusCode).toBe(403);
    });

    it('two requests to send it again at once queue one message', async () => {
      const { cardId } = await profileWithCard(t, term);
      const basketId = uniqueId('twice');
      await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
      await mailOf(basketId, 'sent');
      const answers = await Promise.all([sendAgain(basketId), sendAgain(basketId, staff)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      expect(await messages(basketId)).toBe(2);
      await mailOf(basketId, 'sent');
    });

    it('on a phone, in German, the owner corrects the address on the customer page and sends the receipt again from the basket', async () => {
      const typo = `${uniqueId('ben')}@gmial.com`;
      const right = typo.replace('@gmial.com', '@gmail.com');
      const { profileId, cardId } = await profileWithCard(t, term, { email: typo, fullName: 'Ben Kraus' });
      app.smtp.unknown.add(typo);
      const basketId = uniqueId('phone');
      await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
      await mailOf(basketId, 'refused');

      const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
      await page.goto(`${baseUrl}/portal/signin`);
      await page.getByLabel(/E-Mail/).fill(ownerEmail);
      await page.getByLabel(/Passwort/).fill(PASSWORD);
      await Promise.all([
        page.waitForURL(/\/portal\/dashboard/),
        page.getByRole('button', { name: 'Anmelden' }).click(),
      ]);
      await page.goto(`${baseUrl}/portal/profiles/${profileId}`);
      expect(await page.locator('#undelivered-receipts').textContent()).toContain(
        'Belege per E-Mail, vom Mailserver des Kunden abgelehnt oder aufgegeben: 1.',
      );
      const field = page.locator('#profile-email');
      expect(await field.inputValue()).toBe(typo);
      await field.fill('kein adresse');
      await page.getByRole('button', { name: 'Adresse speichern' }).click();
      // The browser's own check stops a malformed address before it is sent.
      expect(
        await field.evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid),
      ).toBe(false);
      await field.fill(right);
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Adresse speichern' }).click(),
      ]);
      const changes = page.locator('#profile-email-changes tbody tr');
      await expect.poll(() => changes.count()).toBe(1);
      expect(await changes.first().textContent()).toContain(typo);
      expect(await changes.first().textContent()).toContain(right);
      // Both addresses and who corrected it are read without a sideways scroll.
      await listFits(page, '#profile-email-changes');
      await fitsWidth(page);
      await page.screenshot({ path: join(SHOTS, `portal-email-correction-${kind}.png`), fullPage: true });

      await page.goto(`${baseUrl}/portal${basketPath(basketId)}`);
      await expect
        .poll(() => page.locator('#receipt-mail').textContent())
        .toMatch(/^Vom Mailserver des Kunden abgelehnt/);
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Beleg erneut senden' }).click(),
      ]);
      await mailOf(basketId, 'sent');
      await page.reload();
      expect(await page.locator('#receipt-mail').textContent()).toMatch(/an den Mailserver übergeben\.$/);
      await fitsWidth(page);
      await page.screenshot({ path: join(SHOTS, `portal-receipt-sent-again-${kind}.png`), fullPage: true });
      expect(app.smtp.mails.some((m) => JSON.stringify(m.to).includes(right))).toBe(true);
      await page.context().close();
    });
  },
);
