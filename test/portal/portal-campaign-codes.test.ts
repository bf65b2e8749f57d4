import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, basket, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Code {
  code: string;
  redeemedAt: string | null;
  terminalName: string | null;
  outletName: string | null;
  basketId: string | null;
}

/**
 * docs/decisions.md, "Unique codes", in the portal: an owner makes a batch of codes on the
 * campaign's page, downloads them as CSV, and sees which were redeemed, where and when; staff read.
 */
describe.each(databases)("a campaign's unique codes in the portal (%s)", (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;
  let campaignId: number;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    await t.admin('POST', users, { email: `owner-codes-${kind}@example.test`, password: PASSWORD });
    await t.admin('POST', users, { email: `staff-codes-${kind}@example.test`, password: PASSWORD });
    owner = await portalSession(t, `owner-codes-${kind}@example.test`, PASSWORD);
    staff = await portalSession(t, `staff-codes-${kind}@example.test`, PASSWORD);
    const created = await portalCall(t, owner, 'POST', '/campaigns', {
      name: 'Spring flyer',
      type: 'bill',
      discount: { amount: 1.5 },
      uniqueCodes: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    campaignId = (created.json() as { id: number }).id;
  });
  afterAll(() => t?.close());

  it('an owner makes a batch; the page lists it with a CSV; a redeemed code shows when, which terminal, outlet and basket', async () => {
    const made = await portalCall(t, owner, 'POST', `/campaigns/${campaignId}/codeBatches`, {
      count: 4,
      prefix: 'spring-',
      length: 6,
    });
    expect(made.statusCode, made.body).toBe(201);
    const batchId = (made.json() as { id: number }).id;
    const batches = await portalCall(t, staff, 'GET', `/campaigns/${campaignId}/codeBatches`);
    expect(batches.statusCode).toBe(200);
    expect(batches.json()).toMatchObject({
      data: [{ id: batchId, prefix: 'SPRING-', count: 4, redeemed: 0 }],
    });

    const list = await portalCall(t, staff, 'GET', `/campaigns/${campaignId}/codes?batchId=${batchId}`);
    const codes = (list.json() as { data: Code[] }).data;
    expect(codes).toHaveLength(4);
    const [code] = codes.map((c) => c.code);
    if (!code) throw new Error('no code');

    // A till redeems it.
    const up = await term.pos('POST', '/baskets/P-1', {
      body: { ...basket(t.clock.nowMs()), ContextIdentifiers: [code] },
    });
    expect((up.json() as { Rewards: { CouponId: number }[] }).Rewards).toEqual([
      expect.objectContaining({ CouponId: campaignId }),
    ]);
    expect((await term.pos('POST', '/baskets/P-1/grant', { sign: 'P-1' })).statusCode).toBe(200);

    const redeemed = await portalCall(t, staff, 'GET', `/campaigns/${campaignId}/codes?redeemed=true`);
    expect((redeemed.json() as { data: Code[] }).data).toEqual([
      {
        code,
        batchId,
        redeemedAt: new Date(t.clock.nowMs()).toISOString(),
        trackingUnitId: term.trackingUnitId,
        terminalName: 'Till 1',
        outletId: term.outletId,
        outletName: 'Main street',
        basketId: 'P-1',
      },
    ]);

    const csv = await portalCall(t, staff, 'GET', `/campaigns/${campaignId}/codes.csv?batchId=${batchId}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines).toContain(
      `${code},${batchId},${new Date(t.clock.nowMs()).toISOString()},Till 1,Main street,P-1`,
    );

    const page = await t.app.inject({
      method: 'GET',
      url: `/portal/campaigns/${campaignId}`,
      headers: { cookie: staff.cookie },
    });
    expect(page.statusCode).toBe(200);
    const section = page.body.slice(page.body.indexOf('id="codes"'));
    expect(section).toContain('Unique codes');
    expect(section).toContain('SPRING-');
    expect(section).toContain(`href="/portal/api/v1/campaigns/${campaignId}/codes.csv?batchId=${batchId}"`);
    expect(section).toContain(code);
    expect(section).toContain('Main street');
    expect(section).toContain(`/portal/baskets/${term.trackingUnitId}/P-1`);
    // Staff read; only owners get the form.
    expect(section).not.toContain('codeBatches"');

    // The code a customer shows, checked among all of the merchant's codes as a till compares it.
    const looked = await portalCall(
      t,
      staff,
      'GET',
      `/codes/${encodeURIComponent(` ${code.toLowerCase()}`)}`,
    );
    expect(looked.statusCode, looked.body).toBe(200);
    // The list's row, with its campaign and when a return last gave it back (never).
    const [listed] = (redeemed.json() as { data: Code[] }).data;
    expect(looked.json()).toEqual({ ...listed, campaignId, campaignName: 'Spring flyer', givenBackAt: null });
    const unknown = await portalCall(t, staff, 'GET', '/codes/SPRING-ZZZZZZ');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    const campaignsPage = await t.app.inject({
      method: 'GET',
      url: `/portal/campaigns?code=${encodeURIComponent(code.toLowerCase())}`,
      headers: { cookie: staff.cookie },
    });
    const check = campaignsPage.body.slice(campaignsPage.body.indexOf('id="code-check"'));
    expect(check).toContain(`data-code="${code}"`);
    expect(check).toContain(`/portal/baskets/${term.trackingUnitId}/P-1`);
    // A text longer than any code: the API refuses it, the page says no code reads so.
    const long = 'SPRING-'.padEnd(81, 'A');
    expect((await portalCall(t, staff, 'GET', `/codes/${long}`)).statusCode).toBe(400);
    const longPage = await t.app.inject({
      method: 'GET',
      url: `/portal/campaigns?code=${long}`,
      headers: { cookie: staff.cookie },
    });
    expect(longPage.statusCode).toBe(200);
    expect(longPage.body).toContain(`None of your codes reads “${long}”.`);
  });

  it('staff cannot make codes; a campaign without unique codes takes none; another merchant’s campaign is not found', async () => {
    const denied = await portalCall(t, staff, 'POST', `/campaigns/${campaignId}/codeBatches`, { count: 1 });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    const plain = await portalCall(t, owner, 'POST', '/campaigns', {
      name: 'Everyone',
      type: 'bill',
      discount: { amount: 1 },
    });
    const plainId = (plain.json() as { id: number }).id;
    const refused = await portalCall(t, owner, 'POST', `/campaigns/${plainId}/codeBatches`, { count: 1 });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: 'campaign_without_codes' } });
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal/campaigns/${plainId}`,
      headers: { cookie: owner.cookie },
    });
    expect(page.body).not.toContain('id="codes"');

    const other = await setupTerminal(t);
    const theirs = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns`,
      {
        name: 'Theirs',
        type: 'bill',
        discount: { amount: 1 },
        uniqueCodes: true,
      },
    );
    const theirId = (theirs.json() as { id: number }).id;
    for (const path of [`/campaigns/${theirId}/codes`, `/campaigns/${theirId}/codes.csv`]) {
      expect((await portalCall(t, owner, 'GET', path)).statusCode).toBe(404);
    }
    const make = await portalCall(t, owner, 'POST', `/campaigns/${theirId}/codeBatches`, { count: 1 });
    expect(make.statusCode).toBe(404);
    // Nor is another merchant's code found by the check.
    const batch = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns/${theirId}/codeBatches`,
      { count: 1, prefix: 'THEIRS-' },
    );
    expect(batch.statusCode, batch.body).toBe(201);
    const listed = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns/${theirId}/codes`,
    );
    const [theirCode] = (listed.json() as { data: Code[] }).data.map((c) => c.code);
    expect(theirCode).toMatch(/^THEIRS-/);
    expect((await portalCall(t, owner, 'GET', `/codes/${theirCode}`)).statusCode).toBe(404);
  });
});
