import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../store/schema.js';

export interface PointsReport {
  readonly ok: boolean;
  readonly lots: number;
  readonly movements: number;
  readonly usageMovements: number;
  readonly violations: string[];
}

/** Movements written since the history is verified (older ones were replaced by openings). */
const VERIFIED = sql`NOT pre_opening`;
const CREATING = sql`('opening', 'earn', 'return_spent')`;

type Check = RawBuilder<{ problem: string }>;

/** Each lot is the projection of its movements. */
function lotChecks(): Check[] {
  return [
    // What a lot holds is the sum of its movements.
    sql`SELECT 'lot ' || l.id || ': holds ' || l.remaining || ', its movements add up to '
                 || COALESCE(m.total, 0) AS problem
            FROM points_lots l
            LEFT JOIN (SELECT lot_id, sum(points) AS total FROM points_movements WHERE ${VERIFIED}
                        GROUP BY lot_id) m ON m.lot_id = l.id
           WHERE COALESCE(m.total, 0) <> l.remaining
           ORDER BY l.id LIMIT 100`,
    // A lot is created once, by its first movement, which carries what the lot says of itself.
    sql`WITH firsts AS (
            SELECT DISTINCT ON (lot_id) lot_id, kind, points, expires_at, tracking_unit_id, basket_id,
                   merchant_id, scheme_id, profile_id, card_id
              FROM points_movements WHERE ${VERIFIED} ORDER BY lot_id, id),
          creating AS (
            SELECT lot_id, count(*) AS n FROM points_movements
             WHERE ${VERIFIED} AND kind IN ${CREATING} GROUP BY lot_id)
          SELECT 'lot ' || l.id || ': ' || CASE
                   WHEN f.lot_id IS NULL THEN 'no movement creates it'
                   WHEN c.n IS DISTINCT FROM 1 OR f.kind NOT IN ${CREATING}
                     THEN 'not created exactly once by its first movement'
                   WHEN f.kind <> 'opening' AND f.points <> l.points THEN 'created with ' || f.points
                     || ' points, says ' || l.points
                   WHEN f.points > l.points THEN 'opened with more than its points'
                   WHEN f.expires_at IS DISTINCT FROM l.expires_at THEN 'expiry differs from its creation'
                   WHEN f.merchant_id <> l.merchant_id OR f.scheme_id <> l.scheme_id
                     THEN 'merchant or scheme differs from its creation'
                   ELSE 'basket differs from its creation' END AS problem
            FROM points_lots l
            LEFT JOIN firsts f ON f.lot_id = l.id
            LEFT JOIN creating c ON c.lot_id = l.id
           WHERE f.lot_id IS NULL OR c.n IS DISTINCT FROM 1 OR f.kind NOT IN ${CREATING}
              OR (f.kind <> 'opening' AND f.points <> l.points) OR f.points > l.points
              OR f.expires_at IS DISTINCT FROM l.expires_at
              OR f.merchant_id <> l.merchant_id OR f.scheme_id <> l.scheme_id
              OR f.tracking_unit_id IS DISTINCT FROM l.tracking_unit_id
              OR f.basket_id IS DISTINCT FROM l.basket_id
           ORDER BY l.id LIMIT 100`,
    // Every movement stays within its lot: same merchant and scheme, never below zero on the way,
    // and a move takes out exactly what it brings in.
    sql`SELECT 'movement ' || m.id || ': ' || CASE
                   WHEN m.merchant_id <> l.merchant_id OR m.scheme_id <> l.scheme_id
                     THEN 'merchant or scheme differs from its lot ' || l.id
                   ELSE 'lot ' || l.id || ' below zero after it (' || m.running || ')' END AS problem
            FROM (SELECT *, sum(points) OVER (PARTITION BY lot_id ORDER BY id) AS running
                    FROM points_movements WHERE ${VERIFIED}) m
            JOIN points_lots l ON l.id = m.lot_id
           WHERE m.running < 0 OR m.merchant_id <> l.merchant_id OR m.scheme_id <> l.scheme_id
           ORDER BY m.id LIMIT 100`,
    sql`SELECT 'lot ' || lot_id || ': moves take out ' || -COALESCE(sum(points) FILTER (WHERE kind = 'move_out'), 0)
                 || ' and bring in ' || COALESCE(sum(points) FILTER (WHERE kind = 'move_in'), 0) AS problem
            FROM points_movements WHERE ${VERIFIED} AND kind IN ('move_out', 'move_in')
           GROUP BY lot_id
          HAVING sum(points) <> 0 OR count(*) FILTER (WHERE kind = 'move_out')
                                    <> count(*) FILTER (WHERE kind = 'move_in')
           ORDER BY lot_id LIMIT 100`,
    // The lot's holder is the one its last movement booked for.
    sql`SELECT 'lot ' || l.id || ': held by another consumer than its last movement' AS problem
            FROM points_lots l
            JOIN (SELECT DISTINCT ON (lot_id) lot_id, profile_id, card_id FROM points_movements
                   WHERE ${VERIFIED} ORDER BY lot_id, id DESC) m ON m.lot_id = l.id
           WHERE l.profile_id IS DISTINCT FROM m.profile_id OR l.card_id IS DISTINCT FROM m.card_id
           ORDER BY l.id LIMIT 100`,
    // Per consumer and scheme: the movements add up to the points the lots hold.
    sql`WITH moved AS (
            SELECT merchant_id, scheme_id, COALESCE(profile_id, 0) AS p, COALESCE(card_id, 0) AS c,
                   sum(points) AS total FROM points_movements WHERE ${VERIFIED} GROUP BY 1, 2, 3, 4),
          held AS (
            SELECT merchant_id, scheme_id, COALESCE(profile_id, 0) AS p, COALESCE(card_id, 0) AS c,
                   sum(remaining) AS total FROM points_lots GROUP BY 1, 2, 3, 4)
          SELECT 'merchant ' || merchant_id || ' scheme ' || scheme_id
                 || CASE WHEN p <> 0 THEN ' profile ' || p ELSE ' card ' || c END
                 || ': movements add up to ' || COALESCE(moved.total, 0) || ', lots hold '
                 || COALESCE(held.total, 0) AS problem
            FROM moved FULL JOIN held USING (merchant_id, scheme_id, p, c)
           WHERE COALESCE(moved.total, 0) <> COALESCE(held.total, 0) OR COALESCE(moved.total, 0) < 0
           LIMIT 100`,
  ];
}

/**
 * Grants and returns balance against their bookings. Baskets whose points were booked before the
 * history was verified are left out (their movements were replaced by the lots' openings).
 */
function bookingChecks(): Check[] {
  const grantBooked = sql`
    SELECT b.tracking_unit_id, b.basket_id, (l->>'schemeId')::bigint AS scheme_id,
           (l->>'earned')::bigint AS earned, (l->>'spent')::bigint AS spent
      FROM baskets b CROSS JOIN LATERAL json_array_elements(b.grant_result->'booking'->'loyalty') l
     WHERE b.grant_result IS NOT NULL`;
  const returnBooked = sql`
    SELECT r.tracking_unit_id, r.basket_id, r.return_id, (l->>'schemeId')::bigint AS scheme_id,
           (l->>'due')::bigint AS due, (l->>'taken')::bigint AS taken,
           (l->>'shortfall')::bigint AS shortfall, (l->>'givenBack')::bigint AS given_back
      FROM basket_returns r CROSS JOIN LATERAL json_array_elements(r.response->'booking'->'loyalty') l`;
  const oldBaskets = sql`
    SELECT DISTINCT tracking_unit_id, basket_id FROM points_movements
     WHERE pre_opening AND basket_id IS NOT NULL`;
  const oldReturns = sql`
    SELECT DISTINCT tracking_unit_id, basket_id, return_id FROM points_movements
     WHERE pre_opening AND return_id IS NOT NULL`;
  const basket = sql`'basket ' || tracking_unit_id || '/' || basket_id`;
  return [
    // A grant's movements are what it booked: its earned points as one lot, the threshold it
    // redeemed as spending; no earn or spend outside a grant.
    sql`WITH booked AS (${grantBooked}),
          moved AS (
            SELECT tracking_unit_id, basket_id, scheme_id,
                   COALESCE(sum(points) FILTER (WHERE kind = 'earn'), 0) AS earned,
                   -COALESCE(sum(points) FILTER (WHERE kind = 'spend'), 0) AS spent
              FROM points_movements WHERE ${VERIFIED} AND kind IN ('earn', 'spend') GROUP BY 1, 2, 3)
          SELECT ${basket} || ' scheme ' || scheme_id || ': granted earned ' || COALESCE(booked.earned, 0)
                 || ' spent ' || COALESCE(booked.spent, 0) || ', movements earned '
                 || COALESCE(moved.earned, 0) || ' spent ' || COALESCE(moved.spent, 0) AS problem
            FROM booked FULL JOIN moved USING (tracking_unit_id, basket_id, scheme_id)
           WHERE (COALESCE(booked.earned, 0) <> COALESCE(moved.earned, 0)
                  OR COALESCE(booked.spent, 0) <> COALESCE(moved.spent, 0))
             AND (tracking_unit_id, basket_id) NOT IN (${oldBaskets})
           LIMIT 100`,
    // A return's movements are what it booked: take-back as recorded (never more than due, the
    // shortfall being the rest), give-back as recorded; none outside a return.
    sql`WITH booked AS (${returnBooked}),
          moved AS (
            SELECT tracking_unit_id, basket_id, return_id, scheme_id,
                   -COALESCE(sum(points) FILTER (WHERE kind = 'return_earned'), 0) AS taken,
                   COALESCE(sum(points) FILTER (WHERE kind = 'return_spent'), 0) AS given_back
              FROM points_movements WHERE ${VERIFIED} AND kind IN ('return_earned', 'return_spent')
             GROUP BY 1, 2, 3, 4)
          SELECT ${basket} || ' return ' || COALESCE(return_id, '?') || ' scheme ' || scheme_id
                 || ': booked taken ' || COALESCE(booked.taken, 0) || ' of ' || COALESCE(booked.due, 0)
                 || ' given back ' || COALESCE(booked.given_back, 0) || ', movements taken '
                 || COALESCE(moved.taken, 0) || ' given back ' || COALESCE(moved.given_back, 0) AS problem
            FROM booked FULL JOIN moved USING (tracking_unit_id, basket_id, return_id, scheme_id)
           WHERE (COALESCE(booked.taken, 0) <> COALESCE(moved.taken, 0)
                  OR COALESCE(booked.given_back, 0) <> COALESCE(moved.given_back, 0)
                  OR booked.taken > booked.due OR booked.taken < 0
                  OR booked.shortfall <> booked.due - booked.taken)
             AND (tracking_unit_id, basket_id, COALESCE(return_id, '')) NOT IN (${oldReturns})
           LIMIT 100`,
    // Over all its returns, a basket gives back at most what it earned and what it spent, and
    // its spent points come back at most once.
    sql`WITH returned AS (
            SELECT tracking_unit_id, basket_id, scheme_id, sum(due) AS due, sum(taken) AS taken,
                   sum(given_back) AS given_back, count(*) FILTER (WHERE given_back > 0) AS give_backs
              FROM (${returnBooked}) r GROUP BY 1, 2, 3)
          SELECT ${basket} || ' scheme ' || scheme_id || ': returns took back ' || r.taken
                 || ' (due ' || r.due || ') and gave back ' || r.given_back || ' in ' || r.give_backs
                 || ' return(s); the grant earned ' || COALESCE(g.earned, 0) || ' and spent '
                 || COALESCE(g.spent, 0) AS problem
            FROM returned r LEFT JOIN (${grantBooked}) g USING (tracking_unit_id, basket_id, scheme_id)
           WHERE r.due > COALESCE(g.earned, 0) OR r.taken > COALESCE(g.earned, 0)
              OR (r.given_back <> 0 AND r.given_back <> COALESCE(g.spent, 0)) OR r.give_backs > 1
           LIMIT 100`,
  ];
}

/** Campaign usages: the projection rows follow their movements; grants and returns balance. */
function usageChecks(): Check[] {
  const key = sql`tracking_unit_id, basket_id, campaign_id`;
  const usage = sql`'usage ' || tracking_unit_id || '/' || basket_id || ' campaign ' || campaign_id`;
  const oldBaskets = sql`
    SELECT DISTINCT tracking_unit_id, basket_id FROM campaign_usage_movements WHERE kind = 'opening'`;
  return [
    sql`WITH moved AS (
            SELECT ${key},
                   COALESCE(sum(count) FILTER (WHERE kind IN ('opening', 'use')), 0) AS used,
                   -COALESCE(sum(count) FILTER (WHERE kind = 'release'), 0) AS released,
                   COALESCE(sum(count) FILTER (WHERE kind IN ('move_out', 'move_in')), 0) AS moved,
                   count(*) FILTER (WHERE kind = 'move_out') - count(*) FILTER (WHERE kind = 'move_in') AS unpaired
              FROM campaign_usage_movements GROUP BY 1, 2, 3),
          last AS (
            SELECT DISTINCT ON (${key}) ${key}, profile_id, card_id
              FROM campaign_usage_movements ORDER BY ${key}, id DESC)
          SELECT ${usage} || ': counts ' || u.used || ' used ' || u.released || ' released, movements '
                 || COALESCE(m.used, 0) || ' used ' || COALESCE(m.released, 0) || ' released' || CASE
                   WHEN m.moved <> 0 OR m.unpaired <> 0 THEN ', moves unbalanced'
                   WHEN l.profile_id IS DISTINCT FROM u.profile_id OR l.card_id IS DISTINCT FROM u.card_id
                     THEN ', held by another consumer than its last movement'
                   ELSE '' END AS problem
            FROM campaign_usages u
            LEFT JOIN moved m USING (tracking_unit_id, basket_id, campaign_id)
            LEFT JOIN last l USING (tracking_unit_id, basket_id, campaign_id)
           WHERE m.used IS DISTINCT FROM u.used OR m.released IS DISTINCT FROM u.released
              OR m.moved <> 0 OR m.unpaired <> 0
              OR l.profile_id IS DISTINCT FROM u.profile_id OR l.card_id IS DISTINCT FROM u.card_id
           LIMIT 100`,
    // A grant's usages are what it booked; a return's releases are what it booked.
    sql`WITH booked AS (
            SELECT b.tracking_unit_id, b.basket_id, (u->>'campaignId')::bigint AS campaign_id,
                   (u->>'count')::bigint AS used
              FROM baskets b CROSS JOIN LATERAL json_array_elements(b.grant_result->'booking'->'usages') u
             WHERE b.grant_result IS NOT NULL AND (u->>'count')::bigint > 0),
          moved AS (
            SELECT ${key}, sum(count) AS used FROM campaign_usage_movements WHERE kind = 'use' GROUP BY 1, 2, 3)
          SELECT ${usage} || ': granted ' || COALESCE(booked.used, 0) || ', movements '
                 || COALESCE(moved.used, 0) AS problem
            FROM booked FULL JOIN moved USING (tracking_unit_id, basket_id, campaign_id)
           WHERE COALESCE(booked.used, 0) <> COALESCE(moved.used, 0)
             AND (tracking_unit_id, basket_id) NOT IN (${oldBaskets})
           LIMIT 100`,
    sql`WITH booked AS (
            SELECT r.tracking_unit_id, r.basket_id, r.return_id, c::text::bigint AS campaign_id
              FROM basket_returns r
              CROSS JOIN LATERAL json_array_elements(r.response->'booking'->'releasedCampaigns') c),
          moved AS (
            SELECT tracking_unit_id, basket_id, return_id, campaign_id FROM campaign_usage_movements
             WHERE kind = 'release' AND return_id IS NOT NULL)
          SELECT ${usage} || ': ' || CASE WHEN moved.campaign_id IS NULL
                   THEN 'return ' || booked.return_id || ' released it without a movement'
                   ELSE 'released by ' || moved.return_id || ', which does not say so' END AS problem
            FROM booked FULL JOIN moved USING (tracking_unit_id, basket_id, return_id, campaign_id)
           WHERE (booked.campaign_id IS NULL OR moved.campaign_id IS NULL)
             AND (tracking_unit_id, basket_id) NOT IN (${oldBaskets})
           LIMIT 100`,
    // Per consumer and campaign: the movements add up to the usages counted, never below zero.
    sql`WITH moved AS (
            SELECT merchant_id, campaign_id, COALESCE(profile_id, 0) AS p, COALESCE(card_id, 0) AS c,
                   sum(count) AS total FROM campaign_usage_movements GROUP BY 1, 2, 3, 4),
          counted AS (
            SELECT merchant_id, campaign_id, COALESCE(profile_id, 0) AS p, COALESCE(card_id, 0) AS c,
                   sum(used - released) AS total FROM campaign_usages GROUP BY 1, 2, 3, 4)
          SELECT 'merchant ' || merchant_id || ' campaign ' || campaign_id || ' consumer ' || p || '/' || c
                 || ': usage movements add up to ' || COALESCE(moved.total, 0) || ', usages count '
                 || COALESCE(counted.total, 0) AS problem
            FROM moved FULL JOIN counted USING (merchant_id, campaign_id, p, c)
           WHERE COALESCE(moved.total, 0) <> COALESCE(counted.total, 0) OR COALESCE(moved.total, 0) < 0
           LIMIT 100`,
  ];
}

/**
 * The points check (`npm run ledger:verify`, and after the concurrency and return tests); the
 * invariants are listed in docs/decisions.md "Points history".
 */
export async function verifyPoints(db: Kysely<DB>): Promise<PointsReport> {
  const violations: string[] = [];
  for (const check of [...lotChecks(), ...bookingChecks(), ...usageChecks()]) {
    const { rows } = await check.execute(db);
    violations.push(...rows.map((r) => r.problem));
  }
  const counts = await sql<{ lots: number; movements: number; usage_movements: number }>`
    SELECT (SELECT count(*)::int FROM points_lots) AS lots,
           (SELECT count(*)::int FROM points_movements WHERE NOT pre_opening) AS movements,
           (SELECT count(*)::int FROM campaign_usage_movements) AS usage_movements`.execute(db);
  const c = counts.rows[0];
  return {
    ok: violations.length === 0,
    lots: c?.lots ?? 0,
    movements: c?.movements ?? 0,
    usageMovements: c?.usage_movements ?? 0,
    violations,
  };
}
