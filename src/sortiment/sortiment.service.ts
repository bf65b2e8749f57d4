import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { type MenuLanguage, additiveNames, allergenNames } from './allergens.js';
import { type StoredArticle, articleOut, parseArticle, parseGroup } from './article.js';
import {
  createArticle,
  createGroup,
  deleteArticle,
  deleteGroup,
  findSortiment,
  listArticles,
  readArticle,
  updateArticle,
  updateGroup,
} from './sortiment.store.js';

/**
 * The single writes and the menu reads of a merchant's sortiment (docs/decisions.md, "Sortiment"),
 * by the sortiment id of the path: tenancy, the PLU as the only identity, one writer at a time.
 * Bodies come in with the tills' field names and are checked here; refusals are entries of the
 * error catalog (src/shared/errors.ts).
 */

/** A group of the path `Id`, created or replaced; a body `Id` other than the path's is 1000. */
export async function writeGroup(
  db: Kysely<DB>,
  merchantId: number,
  sortimentIdText: string,
  groupId: string,
  body: unknown,
  mode: 'create' | 'update',
): Promise<void> {
  const s = await findSortiment(db, merchantId, sortimentIdText);
  const group = parseGroup(body ?? {}, groupId);
  if (!group.ok) throw new AppError(group.error.error, group.error.detail);
  if (mode === 'create') await createGroup(db, merchantId, s.id, group.value);
  else await updateGroup(db, merchantId, s.id, group.value);
}

export async function removeGroup(
  db: Kysely<DB>,
  merchantId: number,
  sortimentIdText: string,
  groupId: string,
): Promise<void> {
  const s = await findSortiment(db, merchantId, sortimentIdText);
  await deleteGroup(db, merchantId, s.id, groupId);
}

/**
 * The article of a create or update: a body PLU other than the path's is 1000, as is a query
 * `groupId` that differs from the body `GroupId`; the query `groupId` alone places the article.
 */
export function articleForPath(
  body: unknown,
  plu: string,
  queryGroupId: string | null,
  currency: string,
): StoredArticle {
  const parsed = parseArticle(body ?? {}, currency);
  if (!parsed.ok) throw new AppError(parsed.error.error, parsed.error.detail);
  const article = parsed.value;
  if (article.PLU !== plu) throw new AppError('refused', 'PLU of the body differs from the PLU of the path.');
  if (queryGroupId !== null && article.GroupId !== null && queryGroupId !== article.GroupId) {
    throw new AppError('refused', 'groupId of the query and GroupId of the body differ.');
  }
  return { ...article, GroupId: article.GroupId ?? queryGroupId };
}

/** The article of the path `PLU`, created or replaced (an update keeps its group: 12007). */
export async function writeArticle(
  db: Kysely<DB>,
  merchant: { merchantId: number; currency: string },
  sortimentIdText: string,
  path: { plu: string; queryGroupId: string | null },
  body: unknown,
  mode: 'create' | 'update',
): Promise<void> {
  const { merchantId } = merchant;
  const s = await findSortiment(db, merchantId, sortimentIdText);
  const article = articleForPath(body, path.plu, path.queryGroupId, merchant.currency);
  if (mode === 'create') await createArticle(db, merchantId, s.id, article);
  else await updateArticle(db, merchantId, s.id, article, path.queryGroupId);
}

export async function removeArticle(
  db: Kysely<DB>,
  merchantId: number,
  sortimentIdText: string,
  plu: string,
  groupId: string | null,
): Promise<void> {
  const s = await findSortiment(db, merchantId, sortimentIdText);
  await deleteArticle(db, merchantId, s.id, plu, groupId);
}

/** An article for digital menus: with allergen, trace and additive names. */
export function menuArticle(a: StoredArticle, lang: MenuLanguage) {
  return {
    ...articleOut(a),
    AllergenInfo: allergenNames(a.Allergens, lang),
    TraceInfo: allergenNames(a.Traces, lang),
    AdditiveInfo: additiveNames(a.Additives),
  };
}

/**
 * An article of the sortiment and the version it was read at, in one snapshot (the version is
 * the menu's ETag); a `groupId` that is not the article's answers like an unknown article (12006).
 */
export async function readMenuArticle(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  plu: string,
  groupId: string | null,
): Promise<{ article: StoredArticle; version: number }> {
  const { article, version } = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const current = await findSortiment(trx, merchantId, String(sortimentId));
      return {
        article: await readArticle(trx, sortimentId, current.currentGen, plu),
        version: current.version,
      };
    });
  if (!article || (groupId !== null && article.GroupId !== groupId)) throw new AppError('articleNotFound');
  return { article, version };
}

/** One page of the sortiment's articles and the version it was read at, in one snapshot. */
export async function listMenuArticles(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  page: { offset: number; limit: number; groupId: string | null },
): Promise<{ total: number; articles: StoredArticle[]; version: number }> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const current = await findSortiment(trx, merchantId, String(sortimentId));
      const listed = await listArticles(trx, sortimentId, current.currentGen, page);
      return { ...listed, version: current.version };
    });
}
