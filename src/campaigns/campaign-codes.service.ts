import { AppError } from '../shared/errors.js';
import { type Page, type PageQuery, pageOf, pageRequest } from '../shared/paging.js';
import type { Deps } from '../store/deps.js';
import {
  CODE_BATCH_MAX,
  CODE_LENGTH,
  CODE_PREFIX_MAX,
  CODE_PREFIX_PATTERN,
  type CodeCsvRow,
  codeSpace,
  codesCsv,
  distinctCodes,
  normaliseCode,
} from './campaign-codes.js';
import {
  type CodeBatchRow,
  type CodeFilter,
  type CodeRow,
  campaignCodes,
  codeBatches,
  codeCampaign,
  insertCodeBatch,
  insertCodes,
  merchantCode,
} from './campaign-codes.store.js';

/** Use cases of a campaign's unique codes (docs/decisions.md, "Unique codes"). */

export interface CodeBatchRequest {
  readonly count: number;
  readonly prefix?: string | undefined;
  readonly length?: number | undefined;
}

export interface CodeBatchView {
  readonly id: number;
  readonly campaignId: number;
  readonly prefix: string;
  readonly length: number;
  readonly count: number;
  readonly redeemed: number;
  readonly createdAt: string;
}

export interface CodeView {
  readonly code: string;
  readonly batchId: number;
  readonly redeemedAt: string | null;
  readonly trackingUnitId: string | null;
  readonly terminalName: string | null;
  readonly outletId: number | null;
  readonly outletName: string | null;
  readonly basketId: string | null;
}

export interface FoundCodeView extends CodeView {
  readonly campaignId: number;
  readonly campaignName: string;
  readonly givenBackAt: string | null;
}

function invalid(field: string, problem: string): AppError {
  return new AppError('codeBatchInvalid', `${field} ${problem}`, { details: { field } });
}

/** The batch as asked, normalised; 400 naming the field. */
function checkedBatch(body: CodeBatchRequest): { count: number; prefix: string; length: number } {
  const prefix = (body.prefix ?? '').trim().toUpperCase();
  if (prefix.length > CODE_PREFIX_MAX || !CODE_PREFIX_PATTERN.test(prefix)) {
    throw invalid(
      'prefix',
      `must be at most ${CODE_PREFIX_MAX} letters, digits and dashes, not starting with a dash.`,
    );
  }
  const length = body.length ?? CODE_LENGTH.default;
  if (!Number.isSafeInteger(length) || length < CODE_LENGTH.min || length > CODE_LENGTH.max) {
    throw invalid('length', `must be a whole number from ${CODE_LENGTH.min} to ${CODE_LENGTH.max}.`);
  }
  const { count } = body;
  if (!Number.isSafeInteger(count) || count < 1 || count > CODE_BATCH_MAX) {
    throw invalid('count', `must be a whole number from 1 to ${CODE_BATCH_MAX}.`);
  }
  // At most one code in a thousand of the space: a guessed code is then a rare hit.
  if (count > codeSpace(length) / 1000) throw new AppError('campaignCodesExhausted');
  return { count, prefix, length };
}

/** The merchant's campaign that takes unique codes; 404 unknown, 409 ended or without codes. */
async function campaignForCodes(deps: Deps, merchantId: number, campaignId: number): Promise<void> {
  const campaign = await codeCampaign(deps.db, merchantId, campaignId);
  if (campaign === null) throw new AppError('notFound', 'No campaign under this id.');
  if (campaign.endedAt !== null) throw new AppError('ruleEnded', `The campaign ${campaignId} has ended.`);
  if (!campaign.uniqueCodes) throw new AppError('campaignWithoutCodes');
}

function batchView(campaignId: number, b: CodeBatchRow): CodeBatchView {
  return {
    id: b.id,
    campaignId,
    prefix: b.prefix,
    length: b.length,
    count: b.count,
    redeemed: b.redeemed,
    createdAt: b.createdAt.toISOString(),
  };
}

/** Tries to draw a batch's codes again when a drawn one was taken by another code of the merchant. */
const DRAW_ROUNDS = 5;

/**
 * A new batch of `count` codes of the campaign, drawn at random (crypto.randomInt) from the
 * alphabet without look-alikes, each unique among the merchant's codes; written in one
 * transaction, so a batch is whole or absent.
 */
export async function createCodeBatch(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  body: CodeBatchRequest,
): Promise<CodeBatchView> {
  const batch = checkedBatch(body);
  await campaignForCodes(deps, merchantId, campaignId);
  const nowMs = deps.clock.nowMs();
  return deps.db.transaction().execute(async (trx) => {
    const id = await insertCodeBatch(trx, { merchantId, campaignId, ...batch }, nowMs);
    const made = new Set<string>();
    for (let round = 0; round < DRAW_ROUNDS && made.size < batch.count; round++) {
      const drawn = distinctCodes(batch.prefix, batch.length, batch.count - made.size, made);
      for (const code of await insertCodes(trx, merchantId, campaignId, id, drawn)) made.add(code);
    }
    if (made.size < batch.count) throw new AppError('campaignCodesExhausted');
    return batchView(campaignId, {
      id,
      prefix: batch.prefix,
      length: batch.length,
      count: batch.count,
      redeemed: 0,
      createdAt: new Date(nowMs),
    });
  });
}

/** The campaign's batches, newest first, below `beforeId` (a page's cursor). */
export async function listCodeBatches(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  page: { beforeId: number | null; limit: number },
): Promise<CodeBatchView[]> {
  if ((await codeCampaign(deps.db, merchantId, campaignId)) === null) {
    throw new AppError('notFound', 'No campaign under this id.');
  }
  return (await codeBatches(deps.db, merchantId, campaignId, page)).map((b) => batchView(campaignId, b));
}

function codeView(r: CodeRow): CodeView {
  return { ...r, redeemedAt: r.redeemedAt === null ? null : r.redeemedAt.toISOString() };
}

/** A page of the campaign's codes in code order, each with where and when it was redeemed. */
export async function listCodes(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  filter: CodeFilter,
): Promise<CodeView[]> {
  if ((await codeCampaign(deps.db, merchantId, campaignId)) === null) {
    throw new AppError('notFound', 'No campaign under this id.');
  }
  return (await campaignCodes(deps.db, merchantId, campaignId, filter)).map(codeView);
}

/**
 * One of the merchant's codes as a customer or a till typed it (blanks around it and the case
 * do not matter, as at the till), whichever campaign it belongs to: unused, or where and when it
 * was redeemed; 404 when the merchant has no such code.
 */
export async function findCode(deps: Deps, merchantId: number, typed: string): Promise<FoundCodeView> {
  const row = await merchantCode(deps.db, merchantId, normaliseCode(typed));
  if (row === null) throw new AppError('notFound', 'No code of this merchant reads so.');
  return {
    ...codeView(row),
    campaignId: row.campaignId,
    campaignName: row.campaignName,
    givenBackAt: row.givenBackAt === null ? null : row.givenBackAt.toISOString(),
  };
}

/** Every code of the campaign (or of one batch) as CSV, for printing and mailing. */
export async function codesCsvOf(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  batchId: number | undefined,
): Promise<string> {
  const rows: CodeCsvRow[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listCodes(deps, merchantId, campaignId, { batchId, after, limit: 10_000 });
    for (const c of page) {
      rows.push({
        code: c.code,
        batchId: c.batchId,
        redeemedAt: c.redeemedAt,
        terminal: c.terminalName,
        outlet: c.outletName,
        basketId: c.basketId,
      });
    }
    const last = page.at(-1);
    if (page.length < 10_000 || last === undefined) break;
    after = last.code;
  }
  return codesCsv(rows);
}

/** The query of a page of a list (docs/decisions.md, "Paging"). */
/** A page of the campaign's batches, newest first. */
export async function codeBatchPage(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  query: PageQuery,
): Promise<Page<CodeBatchView>> {
  const page = pageRequest('codeBatches', query, ['number']);
  const [before] = page.after ?? [];
  const rows = await listCodeBatches(deps, merchantId, campaignId, {
    beforeId: typeof before === 'number' ? before : null,
    limit: page.limit + 1,
  });
  return pageOf(
    'codeBatches',
    rows,
    page.limit,
    (b) => [b.id],
    (b) => b,
  );
}

/** A page of the campaign's codes in code order, filtered by batch and by whether redeemed. */
export async function codePage(
  deps: Deps,
  merchantId: number,
  campaignId: number,
  query: PageQuery & { batchId?: number | undefined; redeemed?: boolean | undefined },
): Promise<Page<CodeView>> {
  const page = pageRequest('codes', query, ['string']);
  const [after] = page.after ?? [];
  const rows = await listCodes(deps, merchantId, campaignId, {
    batchId: query.batchId,
    redeemed: query.redeemed,
    after: typeof after === 'string' ? after : undefined,
    limit: page.limit + 1,
  });
  return pageOf(
    'codes',
    rows,
    page.limit,
    (c) => [c.code],
    (c) => c,
  );
}
