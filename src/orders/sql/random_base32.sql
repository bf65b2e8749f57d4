-- random_base32: n random characters of the base32 alphabet (a-z, 2-7), from gen_random_uuid's
-- random bytes: the opaque webhook message ids of checkout_status_changed (docs/decisions.md,
-- "Checkout v1": "Webhooks"). VOLATILE: a new value on every call.
CREATE OR REPLACE FUNCTION random_base32(n integer) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT string_agg(substr('abcdefghijklmnopqrstuvwxyz234567', (get_byte(b.bytes, i) % 32) + 1, 1), ''
                    ORDER BY i)
    FROM (SELECT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')
                 AS bytes) b,
         generate_series(0, n - 1) AS i
$$;
