-- dashboard_usages_changed: the trigger of campaign_usages that keeps each campaign's uses (used
-- less released by returns) per local day of the usage in the merchant's time zone and the outlet
-- of its till (docs/decisions.md, "Dashboard figures kept per day"). After each statement the rows
-- as they were leave the figures and the rows as they are enter them (migration 0036).
CREATE OR REPLACE FUNCTION dashboard_usages_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM dashboard_count_usages(array_agg(n.merchant_id), array_agg(n.tracking_unit_id),
      array_agg(n.campaign_id), array_agg(n.created_at), array_agg((n.used - n.released)::bigint))
      FROM new_rows n HAVING count(*) > 0;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM dashboard_count_usages(array_agg(o.merchant_id), array_agg(o.tracking_unit_id),
      array_agg(o.campaign_id), array_agg(o.created_at), array_agg((o.released - o.used)::bigint))
      FROM old_rows o HAVING count(*) > 0;
  ELSE
    PERFORM dashboard_count_usages(array_agg(x.merchant_id), array_agg(x.tracking_unit_id),
      array_agg(x.campaign_id), array_agg(x.created_at), array_agg(x.uses))
      FROM (SELECT o.merchant_id, o.tracking_unit_id, o.campaign_id, o.created_at,
                   (o.released - o.used)::bigint AS uses FROM old_rows o
            UNION ALL
            SELECT n.merchant_id, n.tracking_unit_id, n.campaign_id, n.created_at,
                   (n.used - n.released)::bigint FROM new_rows n) x
      HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
