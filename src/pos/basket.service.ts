import { sql } from 'kysely';
import { resolveBasketIdentity } from '../cards/basket-identity.js';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import type { AuthenticatedUnit } from './auth.js';
import { parseBasket } from './basket.parse.js';
import type { BasketBody, BasketResponse, LoyaltyOut, RewardOut } from './basket.schemas.js';

export interface BasketQuery {
  consumerIdentToken?: string;
  giftCardId?: string;
}

export interface GrantResponse {
  BasketId: string;
  Granted: true;
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
}

/** What the stored `result` column holds: the response of the latest upload. */
interface StoredResult {
  response: BasketResponse;
}

/**
 * Upload: validate, compute the rewards from scratch and store the whole basket anew, replacing
 * any earlier upload of the same basketId on this trackingUnit. A granted basket is never
 * replaced (11010); the check is part of the write, so a grant racing an upload cannot be lost.
 */
export async function uploadBasket(
  ctx: AppContext,
  unit: AuthenticatedUnit,
  basketId: string,
  query: BasketQuery,
  body: BasketBody,
): Promise<BasketResponse> {
  const basket = parseBasket(body, unit.currency, unit.timeZone);
  const identity = await resolveBasketIdentity(
    ctx.database.db,
    unit.merchantId,
    { ...query, contextIdentifiers: basket.contextIdentifiers },
    ctx.clock.nowMs(),
  );
  // No campaign or loyalty scheme can be defined yet, so nothing is rewarded; the reward
  // engine fills these in from the merchant's campaigns.
  const response: BasketResponse = { Rewards: [], LoyaltyInfo: [] };
  if (identity.balances.length > 0) response.Balances = identity.balances;
  const stored: StoredResult = { response };
  const { BillPdf: _pdf, ...rest } = body;
  const now = new Date(ctx.clock.nowMs());
  const row = await ctx.database.db
    .insertInto('baskets')
    .values({
      merchant_id: unit.merchantId,
      tracking_unit_id: unit.unitId,
      basket_id: basketId,
      outlet_id: unit.outletId,
      timestamp_utc: new Date(basket.timestamp.utcMs),
      timestamp_offset_minutes: basket.timestamp.offsetMinutes,
      currency: basket.currency,
      total_value_minor: basket.totalValueMinor,
      consumer_token: query.consumerIdentToken ?? null,
      gift_card_id: query.giftCardId ?? null,
      profile_id: identity.profileId,
      body: JSON.stringify(rest),
      bill_pdf: basket.billPdf,
      result: JSON.stringify(stored),
      uploaded_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['tracking_unit_id', 'basket_id'])
        .doUpdateSet((eb) => ({
          outlet_id: eb.ref('excluded.outlet_id'),
          timestamp_utc: eb.ref('excluded.timestamp_utc'),
          timestamp_offset_minutes: eb.ref('excluded.timestamp_offset_minutes'),
          currency: eb.ref('excluded.currency'),
          total_value_minor: eb.ref('excluded.total_value_minor'),
          consumer_token: eb.ref('excluded.consumer_token'),
          gift_card_id: eb.ref('excluded.gift_card_id'),
          profile_id: eb.ref('excluded.profile_id'),
          body: eb.ref('excluded.body'),
          bill_pdf: eb.ref('excluded.bill_pdf'),
          result: eb.ref('excluded.result'),
          uploaded_at: eb.ref('excluded.uploaded_at'),
          revision: sql<number>`baskets.revision + 1`,
        }))
        .where('baskets.granted_at', 'is', null),
    )
    .returning('revision')
    .executeTakeFirst();
  if (!row) throw new AppError('basketGranted');
  return response;
}

/**
 * Grant: the bill is paid and final. The first grant books the basket; a second one answers
 * the same body and books nothing. `redeemedInPos=false` books the rewards as not redeemed.
 */
export async function grantBasket(
  ctx: AppContext,
  unit: AuthenticatedUnit,
  basketId: string,
  redeemedInPos: boolean,
): Promise<GrantResponse> {
  return ctx.database.db.transaction().execute(async (trx) => {
    const basket = await trx
      .selectFrom('baskets')
      .select(['result', 'granted_at', 'grant_result'])
      .where('tracking_unit_id', '=', unit.unitId)
      .where('basket_id', '=', basketId)
      .forUpdate()
      .executeTakeFirst();
    if (!basket) throw new AppError('basketUnknown');
    if (basket.granted_at !== null && basket.grant_result !== null) {
      return basket.grant_result as GrantResponse;
    }
    const stored = basket.result as StoredResult;
    const granted: GrantResponse = {
      BasketId: basketId,
      Granted: true,
      Rewards: stored.response.Rewards,
      LoyaltyInfo: stored.response.LoyaltyInfo,
    };
    await trx
      .updateTable('baskets')
      .set({
        granted_at: new Date(ctx.clock.nowMs()),
        redeemed_in_pos: redeemedInPos,
        grant_result: JSON.stringify(granted),
      })
      .where('tracking_unit_id', '=', unit.unitId)
      .where('basket_id', '=', basketId)
      .execute();
    return granted;
  });
}
