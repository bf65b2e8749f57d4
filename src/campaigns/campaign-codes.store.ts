import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/** Queries of a campaign's unique codes (docs/decisions.md, "Unique codes"; migration 0038). */

export interface CodeCampaign {
  readonly id: number;
  readonly endedAt: Date | null;
  /** The campaign's current version takes unique codes. */
  readonly uniqueCodes: boolean;
}

/** The campaign of the merchant, with whether it takes unique codes; null: no such campaign. */
export async function codeCampaign(
  db: Kysely<DB>,
  merchantId: number,
  campaignId: number,
): Promise<CodeCampaign | null> {
  const row = await db
    .selectFrom('campaigns')
    .select(['id', 'ended_at', sql<boolean>`COALESCE((engine->>'uniqueCodes')::boolean, false)`.as('unique')])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', campaignId)
    .executeTakeFirst();
  return row ? { id: row.id, endedAt: row.ended_at, uniqueCodes: row.unique } : null;
}

/** A new batch's row, locked with the transaction. */
export async function insertCodeBatch(
  trx: Transaction<DB>,
  batch: { merchantId: number; campaignId: number; prefix: string; length: number; count: number },
  nowMs: number,
): Promise<number> {
  const row = await trx
    .insertInto('campaign_code_batches')
    .values({
      merchant_id: batch.merchantId,
      campaign_id: batch.campaignId,
      prefix: batch.prefix,
      code_length: batch.length,
      count: batch.count,
      created_at: new Date(nowMs),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Inserts the codes that no code of the merchant has taken yet; answers those inserted. */
export async function insertCodes(
  trx: Transaction<DB>,
  merchantId: number,
  campaignId: number,
  batchId: number,
  codes: readonly string[],
): Promise<string[]> {
  const inserted: string[] = [];
  for (let i = 0; i < codes.length; i += 5000) {
    const chunk = codes.slice(i, i + 5000);
    const res = await sql<{ code: string }>`
      INSERT INTO campaign_codes (merchant_id, code, campaign_id, batch_id)
      SELECT ${merchantId}, c, ${campaignId}, ${batchId} FROM unnest(${chunk}::text[]) AS c
      ON CONFLICT (merchant_id, code) DO NOTHING
      RETURNING code`.execute(trx);
    for (const r of res.rows) inserted.push(r.code);
  }
  return inserted;
}

/** The merchant's codes among these texts (already normalised) that no grant holds: code and campaign. */
export async function unusedCodesAmong(
  db: Kysely<DB>,
  merchantId: number,
  codes: readonly string[],
): Promise<{ code: string; campaignId: number }[]> {
  if (codes.length === 0) return [];
  const rows = await db
    .selectFrom('campaign_codes')
    .select(['code', 'campaign_id'])
    .where('merchant_id', '=', merchantId)
    .where('code', 'in', codes)
    .where('redeemed_at', 'is', null)
    .orderBy('code')
    .execute();
  return rows.map((r) => ({ code: r.code, campaignId: r.campaign_id }));
}

/**
 * A return released the usage of these campaigns: the codes this basket redeemed for them are
 * free again (docs/decisions.md, "Unique codes"). Answers the codes given back.
 */
export async function giveBackCodes(
  trx: Transaction<DB>,
  ref: { merchantId: number; trackingUnitId: string; basketId: string },
  campaignIds: readonly number[],
  nowMs: number,
): Promise<string[]> {
  if (campaignIds.length === 0) return [];
  const rows = await trx
    .updateTable('campaign_codes')
    .set({
      redeemed_at: null,
      tracking_unit_id: null,
      basket_id: null,
      outlet_id: null,
      given_back_at: new Date(nowMs),
    })
    .where('merchant_id', '=', ref.merchantId)
    .where('tracking_unit_id', '=', ref.trackingUnitId)
    .where('basket_id', '=', ref.basketId)
    .where('campaign_id', 'in', campaignIds)
    .returning('code')
    .execute();
  return rows.map((r) => r.code);
}

export interface CodeBatchRow {
  readonly id: number;
  readonly prefix: string;
  readonly length: number;
  readonly count: number;
  readonly redeemed: number;
  readonly createdAt: Date;
}

/** A campaign's batches, newest first (ids below `beforeId`), with how many of their codes are redeemed now. */
export async function codeBatches(
  db: Kysely<DB>,
  merchantId: number,
  campaignId: number,
  page: { beforeId: number | null; limit: number },
): Promise<CodeBatchRow[]> {
  const rows = await sql<{
    id: number;
    prefix: string;
    code_length: number;
    count: number;
    redeemed: number;
    created_at: Date;
  }>`
    SELECT b.id, b.prefix, b.code_length, b.count, b.created_at,
           (SELECT count(*)::integer FROM campaign_codes c
             WHERE c.merchant_id = b.merchant_id AND c.batch_id = b.id AND c.redeemed_at IS NOT NULL) AS redeemed
      FROM campaign_code_batches b
     WHERE b.merchant_id = ${merchantId} AND b.campaign_id = ${campaignId}
       AND (${page.beforeId}::bigint IS NULL OR b.id < ${page.beforeId}::bigint)
     ORDER BY b.id DESC LIMIT ${page.limit}`.execute(db);
  return rows.rows.map((r) => ({
    id: Number(r.id),
    prefix: r.prefix,
    length: r.code_length,
    count: r.count,
    redeemed: r.redeemed,
    createdAt: r.created_at,
  }));
}

export interface CodeRow {
  readonly code: string;
  readonly batchId: number;
  readonly redeemedAt: Date | null;
  readonly trackingUnitId: string | null;
  readonly terminalName: string | null;
  readonly outletId: number | null;
  readonly outletName: string | null;
  readonly basketId: string | null;
}

export interface CodeFilter {
  readonly batchId?: number | undefined;
  /** true: only redeemed codes; false: only unused ones. */
  readonly redeemed?: boolean | undefined;
  /** Codes after this one (the list is in code order). */
  readonly after?: string | undefined;
  readonly limit: number;
}

/** The merchant's codes with the terminal and outlet of their redemption. */
function codesWhere(db: Kysely<DB>, merchantId: number) {
  return db
    .selectFrom('campaign_codes as c')
    .leftJoin('tracking_units as u', 'u.id', 'c.tracking_unit_id')
    .leftJoin('outlets as o', (j) =>
      j.onRef('o.id', '=', 'c.outlet_id').onRef('o.merchant_id', '=', 'c.merchant_id'),
    )
    .select([
      'c.code',
      'c.batch_id',
      'c.redeemed_at',
      'c.tracking_unit_id',
      'u.instance_name',
      'c.outlet_id',
      'o.name as outlet_name',
      'c.basket_id',
    ])
    .where('c.merchant_id', '=', merchantId);
}

type CodeSelection = Awaited<ReturnType<ReturnType<typeof codesWhere>['executeTakeFirstOrThrow']>>;

function codeRow(r: CodeSelection): CodeRow {
  return {
    code: r.code,
    batchId: Number(r.batch_id),
    redeemedAt: r.redeemed_at,
    trackingUnitId: r.tracking_unit_id,
    terminalName: r.instance_name,
    outletId: r.outlet_id === null ? null : Number(r.outlet_id),
    outletName: r.outlet_name,
    basketId: r.basket_id,
  };
}

/** A campaign's codes in code order, with where and when each redeemed one was redeemed. */
export async function campaignCodes(
  db: Kysely<DB>,
  merchantId: number,
  campaignId: number,
  filter: CodeFilter,
): Promise<CodeRow[]> {
  let q = codesWhere(db, merchantId).where('c.campaign_id', '=', campaignId);
  if (filter.batchId !== undefined) q = q.where('c.batch_id', '=', filter.batchId);
  if (filter.redeemed === true) q = q.where('c.redeemed_at', 'is not', null);
  if (filter.redeemed === false) q = q.where('c.redeemed_at', 'is', null);
  if (filter.after !== undefined) q = q.where('c.code', '>', filter.after);
  const rows = await q.orderBy('c.code').limit(filter.limit).execute();
  return rows.map(codeRow);
}

export interface FoundCodeRow extends CodeRow {
  readonly campaignId: number;
  readonly campaignName: string;
  /** When a return last gave the code back; kept when it is redeemed again. */
  readonly givenBackAt: Date | null;
}

/** One of the merchant's codes, whichever campaign it belongs to, with that campaign's name; null: none. */
export async function merchantCode(
  db: Kysely<DB>,
  merchantId: number,
  code: string,
): Promise<FoundCodeRow | null> {
  const r = await codesWhere(db, merchantId)
    .innerJoin('campaigns as k', (j) =>
      j.onRef('k.id', '=', 'c.campaign_id').onRef('k.merchant_id', '=', 'c.merchant_id'),
    )
    .select(['c.campaign_id', 'k.name as campaign_name', 'c.given_back_at'])
    .where('c.code', '=', code)
    .executeTakeFirst();
  if (r === undefined) return null;
  return {
    ...codeRow(r),
    campaignId: Number(r.campaign_id),
    campaignName: r.campaign_name,
    givenBackAt: r.given_back_at,
  };
}
