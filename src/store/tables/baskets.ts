import type { ColumnType, Generated } from 'kysely';
import type { Json, Timestamp } from './columns.js';

/** Row types of baskets and their returns. */

export interface BasketsTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  outlet_id: number;
  timestamp_utc: Timestamp;
  timestamp_offset_minutes: number;
  currency: string;
  total_value_minor: number | null;
  consumer_token: string | null;
  gift_card_id: string | null;
  /** The basket as the POS sent it, normalised (field names as in the documents). */
  body: Json<'baskets.body'>;
  /** The body's BillNumber (what `body->>'BillNumber'` gives), written with it. */
  bill_number: string | null;
  bill_pdf: Buffer | null;
  /** The basket response of the latest upload, with what the grant needs to book it. */
  result: Json<'baskets.result'>;
  revision: Generated<number>;
  uploaded_at: Timestamp;
  granted_at: Timestamp | null;
  redeemed_in_pos: boolean | null;
  grant_result: Json<'baskets.grant_result'> | null;
  /** The consumer profile the upload identified (card or one-time password), if any. */
  profile_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface BasketReturnsTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  return_id: string;
  body: Json<'basket_returns.body'>;
  response: Json<'basket_returns.response'>;
  created_at: Timestamp;
  /** The basket's consumer (migration 0043): its profile, else its card's id. */
  profile_id: ColumnType<number | null, number | null | undefined, number | null>;
  consumer_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** The line gross this return took back, minor units; null for returns before migration 0043. */
  returned_gross_minor: ColumnType<number | null, number | null | undefined, number | null>;
}
