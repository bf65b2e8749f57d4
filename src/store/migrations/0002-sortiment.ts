import type { Migration } from './migration.js';

/**
 * Sortiment groups and articles. The PLU is the only identity of an article inside a sortiment;
 * the article itself is kept as one canonical jsonb document (prices in integer minor units) with
 * a content hash, so that a bulk upload recognises unchanged articles without rewriting them.
 */
export const sortiment: Migration = {
  name: '0002-sortiment',
  statements: [
    `CREATE TABLE sortiment_groups (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       sortiment_id bigint NOT NULL REFERENCES sortiments(id),
       id text NOT NULL,
       name jsonb NOT NULL,
       up_group_id text,
       PRIMARY KEY (sortiment_id, id),
       FOREIGN KEY (sortiment_id, up_group_id) REFERENCES sortiment_groups (sortiment_id, id)
         DEFERRABLE INITIALLY DEFERRED)`,
    `CREATE INDEX sortiment_groups_up ON sortiment_groups (sortiment_id, up_group_id)`,
    // No foreign keys on articles: checking them costs more than half the time of a 100,000-article
    // upload. Every writer locks the sortiment row and checks the group first (sortiment.store.ts,
    // bulk-upload.ts), and tenancy is checked on the sortiment before any article is touched.
    `CREATE TABLE sortiment_articles (
       merchant_id bigint NOT NULL,
       sortiment_id bigint NOT NULL,
       plu text NOT NULL,
       group_id text,
       body jsonb NOT NULL,
       content_hash text NOT NULL,
       PRIMARY KEY (sortiment_id, plu))`,
    `CREATE INDEX sortiment_articles_group ON sortiment_articles (sortiment_id, group_id)`,
  ],
};
