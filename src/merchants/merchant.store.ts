import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * The merchant module's queries: merchants, brands and outlets (developer keys and terminals are
 * in terminal.store.ts). Lookups answer null when nothing matches; each interface turns that into
 * its own error (the POS wire's 1005 or 10001, the operator API's not_found).
 */

export interface Merchant {
  readonly id: number;
  readonly serviceUserName: string;
  readonly currency: string;
  readonly timeZone: string;
}

const MERCHANT_COLUMNS = ['id', 'service_user_name', 'currency', 'time_zone'] as const;

function merchantOf(row: {
  id: number;
  service_user_name: string;
  currency: string;
  time_zone: string;
}): Merchant {
  return {
    id: row.id,
    serviceUserName: row.service_user_name,
    // The column is a fixed-width code; a padded value must not reach currency comparisons.
    currency: row.currency.trim(),
    timeZone: row.time_zone,
  };
}

/** The one lookup of a merchant by its user name. */
export async function findMerchantByName(db: Kysely<DB>, serviceUserName: string): Promise<Merchant | null> {
  const row = await db
    .selectFrom('merchants')
    .select(MERCHANT_COLUMNS)
    .where('service_user_name', '=', serviceUserName)
    .executeTakeFirst();
  return row ? merchantOf(row) : null;
}

export async function findMerchantById(db: Kysely<DB>, id: number): Promise<Merchant | null> {
  const row = await db
    .selectFrom('merchants')
    .select(MERCHANT_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? merchantOf(row) : null;
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

/** False when the user name is taken. */
export async function createMerchant(
  db: Kysely<DB>,
  merchant: { serviceUserName: string; displayName: string; currency: string; timeZone: string },
): Promise<boolean> {
  try {
    await db
      .insertInto('merchants')
      .values({
        service_user_name: merchant.serviceUserName,
        display_name: merchant.displayName,
        currency: merchant.currency,
        time_zone: merchant.timeZone,
      })
      .execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function createBrand(
  db: Kysely<DB>,
  merchantId: number,
  name: string,
): Promise<{ id: number; name: string }> {
  return db
    .insertInto('brands')
    .values({ merchant_id: merchantId, name })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}

export interface BrandWithOutlets {
  brandId: number;
  brandName: string;
  outlets: { Id: number; Name: string }[];
}

/** The merchant's brands with their outlets, in id order. */
export async function brandsWithOutlets(db: Kysely<DB>, merchantId: number): Promise<BrandWithOutlets[]> {
  const rows = await db
    .selectFrom('brands as b')
    .leftJoin('brand_outlets as bo', 'bo.brand_id', 'b.id')
    .leftJoin('outlets as o', 'o.id', 'bo.outlet_id')
    .select(['b.id as brandId', 'b.name as brandName', 'o.id as outletId', 'o.name as outletName'])
    .where('b.merchant_id', '=', merchantId)
    .orderBy('b.id')
    .orderBy('o.id')
    .execute();
  const brands = new Map<number, BrandWithOutlets>();
  for (const r of rows) {
    let brand = brands.get(r.brandId);
    if (!brand) {
      brand = { brandId: r.brandId, brandName: r.brandName, outlets: [] };
      brands.set(r.brandId, brand);
    }
    if (r.outletId !== null) brand.outlets.push({ Id: r.outletId, Name: r.outletName ?? '' });
  }
  return [...brands.values()];
}

export interface OutletFields {
  name: string | null;
  description: string | null;
  street: string | null;
  city: string | null;
  postalIndex: string | null;
  countryIso: string | null;
  publicTelefon: string | null;
  publicEmail: string | null;
  websiteUrl: string | null;
  facebookUrl: string | null;
  twitterUrl: string | null;
}

/** A new outlet of one of the merchant's brands; null when the brand is not the merchant's. */
export async function createOutlet(
  db: Kysely<DB>,
  merchantId: number,
  brandId: number,
  fields: OutletFields,
): Promise<{ id: number; name: string | null } | null> {
  return db.transaction().execute(async (trx) => {
    const brand = await trx
      .selectFrom('brands')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('id', '=', brandId)
      .executeTakeFirst();
    if (!brand) return null;
    const outlet = await trx
      .insertInto('outlets')
      .values({
        merchant_id: merchantId,
        name: fields.name,
        description: fields.description,
        street: fields.street,
        city: fields.city,
        postal_index: fields.postalIndex,
        country_iso: fields.countryIso,
        public_telefon: fields.publicTelefon,
        public_email: fields.publicEmail,
        website_url: fields.websiteUrl,
        facebook_url: fields.facebookUrl,
        twitter_url: fields.twitterUrl,
      })
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('brand_outlets')
      .values({ merchant_id: merchantId, brand_id: brand.id, outlet_id: outlet.id })
      .execute();
    return outlet;
  });
}

export async function isOutletOf(db: Kysely<DB>, merchantId: number, outletId: number): Promise<boolean> {
  const row = await db
    .selectFrom('outlets')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', outletId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Which of these outlet ids are outlets of the merchant. */
export async function outletsAmong(
  db: Kysely<DB>,
  merchantId: number,
  outletIds: readonly number[],
): Promise<Set<number>> {
  const rows = await db
    .selectFrom('outlets')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', [...outletIds])
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function isSortimentOf(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('sortiments')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', sortimentId)
    .executeTakeFirst();
  return row !== undefined;
}

/** What a receipt says of the merchant who issued it; null for a field not set. */
export interface ReceiptDetails {
  readonly legalName: string | null;
  readonly address: string | null;
  readonly taxNumber: string | null;
}

/** The merchant's receipt details; null when there is no such merchant. */
export async function receiptDetailsRow(db: Kysely<DB>, merchantId: number): Promise<ReceiptDetails | null> {
  const row = await db
    .selectFrom('merchants')
    .select(['legal_name', 'legal_address', 'tax_number'])
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return row ? { legalName: row.legal_name, address: row.legal_address, taxNumber: row.tax_number } : null;
}

/** Sets all three at once (a field not set is null); null when there is no such merchant. */
export async function updateReceiptDetails(
  db: Kysely<DB>,
  merchantId: number,
  details: ReceiptDetails,
): Promise<ReceiptDetails | null> {
  const row = await db
    .updateTable('merchants')
    .set({ legal_name: details.legalName, legal_address: details.address, tax_number: details.taxNumber })
    .where('id', '=', merchantId)
    .returning(['legal_name', 'legal_address', 'tax_number'])
    .executeTakeFirst();
  return row ? { legalName: row.legal_name, address: row.legal_address, taxNumber: row.tax_number } : null;
}
