-- basket_sales_lines: per position of a granted basket [PositionId, PLU or null, Amount, line gross
-- in minor units] (docs/decisions.md, "Dashboard figures").
--
-- From the parsed basket the upload stored (result.basket, docs/decisions.md "The parsed basket is
-- stored versioned"); for a basket stored before that, from its body, priced by the same rule as
-- the upload: unit price times Amount, rounded half away from zero to the currency's minor unit
-- (docs/decisions.md, "Rules the code relies on": Money). The expression of the generated column
-- baskets.sales_lines (migration 0030): its signature stays as it is.
CREATE OR REPLACE FUNCTION basket_sales_lines(r json, b json, c text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  stored json := r->'basket';
BEGIN
  IF stored IS NOT NULL AND json_typeof(stored) = 'object' THEN
    RETURN (SELECT COALESCE(jsonb_agg(jsonb_build_array((p->>0)::bigint, p->>1, (p->>3)::numeric,
                                                        (p->>6)::bigint) ORDER BY i), '[]'::jsonb)
              FROM json_array_elements(stored->'positions') WITH ORDINALITY AS x(p, i));
  END IF;
  RETURN (SELECT COALESCE(jsonb_agg(jsonb_build_array(
                   (p->>'PositionId')::bigint, NULLIF(p->>'ProductId', ''), (p->>'Amount')::numeric,
                   -- The currency's minor-unit exponent: 3, 0 or, for all others, 2.
                   round(COALESCE(p->>'CurrentGrossPrice', p->>'RegularGrossPrice', '0')::numeric
                         * (p->>'Amount')::numeric
                         * power(10::numeric,
                                 CASE WHEN upper(c) IN ('BHD', 'JOD', 'KWD', 'OMR', 'TND') THEN 3
                                      WHEN upper(c) IN ('JPY', 'KRW', 'ISK', 'CLP', 'VND') THEN 0
                                      ELSE 2 END))::bigint)
                 ORDER BY (p->>'PositionId')::bigint), '[]'::jsonb)
            FROM json_array_elements(COALESCE(b->'Positions', '[]'::json)) AS x(p));
END $$;
