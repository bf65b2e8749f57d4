-- dashboard_baskets_changed: the trigger of the baskets table that keeps the dashboard's daily
-- figures (docs/decisions.md, "Dashboard figures kept per day"): after each statement that inserts,
-- updates or deletes baskets, the rows as they were leave the figures and the rows as they are
-- enter them (dashboard_count_baskets), so an upload counts an open basket, its grant moves it to
-- the granted ones with its sales and rewards on the day of the basket's time, however late.
-- Statement triggers with transition tables (migration 0036): a batch of grants is one call.
CREATE OR REPLACE FUNCTION dashboard_baskets_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM dashboard_count_baskets(array_agg(1), array_agg(n.merchant_id), array_agg(n.outlet_id),
      array_agg(n.timestamp_utc), array_agg(n.granted_at IS NOT NULL), array_agg(n.gross_minor),
      array_agg(n.reward_minor), array_agg(n.total_value_minor), array_agg(n.sales_lines),
      array_agg(to_jsonb(n.reward_campaign_ids)), array_agg(to_jsonb(n.reward_campaign_minor)))
      FROM new_rows n HAVING count(*) > 0;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM dashboard_count_baskets(array_agg(-1), array_agg(o.merchant_id), array_agg(o.outlet_id),
      array_agg(o.timestamp_utc), array_agg(o.granted_at IS NOT NULL), array_agg(o.gross_minor),
      array_agg(o.reward_minor), array_agg(o.total_value_minor), array_agg(o.sales_lines),
      array_agg(to_jsonb(o.reward_campaign_ids)), array_agg(to_jsonb(o.reward_campaign_minor)))
      FROM old_rows o HAVING count(*) > 0;
  ELSE
    PERFORM dashboard_count_baskets(array_agg(x.s), array_agg(x.merchant_id), array_agg(x.outlet_id),
      array_agg(x.timestamp_utc), array_agg(x.granted), array_agg(x.gross_minor),
      array_agg(x.reward_minor), array_agg(x.total_value_minor), array_agg(x.sales_lines),
      array_agg(x.ids), array_agg(x.minors))
      FROM (SELECT -1 AS s, o.merchant_id, o.outlet_id, o.timestamp_utc, o.granted_at IS NOT NULL AS granted,
                   o.gross_minor, o.reward_minor, o.total_value_minor, o.sales_lines,
                   to_jsonb(o.reward_campaign_ids) AS ids, to_jsonb(o.reward_campaign_minor) AS minors
              FROM old_rows o
            UNION ALL
            SELECT 1, n.merchant_id, n.outlet_id, n.timestamp_utc, n.granted_at IS NOT NULL,
                   n.gross_minor, n.reward_minor, n.total_value_minor, n.sales_lines,
                   to_jsonb(n.reward_campaign_ids), to_jsonb(n.reward_campaign_minor)
              FROM new_rows n) x
      HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
