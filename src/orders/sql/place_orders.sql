-- place_orders: the checkout orders of a batch (group commit, src/orders/order-write.store.ts), with one
-- statement per step for the whole batch instead of one per step and order (docs/decisions.md,
-- "Checkout v1": "Orders in one statement", "Idempotency").
--
-- The orders of a customer card without a reservation whose Idempotency-Key is new, nearly all of
-- them, are decided by place_order's rules, in memory, profile by profile in the order of the
-- orders. Their profiles are locked in the order of the profiles' ids, so that two batches never
-- wait for each other in a circle, and the write re-checks that every account it charges still
-- holds what the charges were decided on. Every other order of the batch (a one-time password, an
-- unknown reference, a reservation, a key seen before) goes through place_order afterwards, in its
-- own subtransaction. A batch that fails as a whole is written again order by order.
--
-- Each new Idempotency-Key is written once, with its answer: the keys are looked up, not claimed
-- (a key another transaction works on is locked by pg_try_advisory_xact_lock, taken just before,
-- or inserted by it, committed or not), and inserted at the end with their answers; a key another
-- writer inserted after the lookup makes that insert fail, which undoes the batch, and its orders
-- are written again one by one, each then finding the key. The batch's rows have the composite
-- type checkout_order_write (migration 0022).
CREATE OR REPLACE FUNCTION place_orders(p_rows json, p_refusals json)
RETURNS TABLE (row_no integer, outcome text, answer_status integer, answer_text text,
  event_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  w checkout_order_write[];
  n integer;
  i integer;
  r record;
  o checkout_order_write;
  -- Per order (index row_no + 1): its outcome, and 'set' or 'one' while it is undecided.
  o_outcome text[];
  o_status integer[];
  o_text text[];
  o_events integer[];
  v_way text[];
  v_profile bigint[];
  v_claimed integer[];
  v_inserted text[];
  v_refusal text[];
  v_old bigint[];
  v_new bigint[];
  -- The charges of the batch, in the order of their profiles.
  f_row integer[] := '{}';
  f_account bigint[] := '{}';
  f_allowed boolean[] := '{}';
  f_balance bigint[] := '{}';
  f_currency text[] := '{}';
  f_open boolean[] := '{}';
  f_reserved bigint[] := '{}';
  v_seen boolean[];
  v_balance bigint;
  v_account bigint := NULL;
  -- What is written at the end, one statement per table.
  a_id bigint[] := '{}';
  a_start bigint[] := '{}';
  a_final bigint[] := '{}';
  c_row integer[] := '{}';
  v_count integer;
  v_outcome text;
  v_status integer;
  v_text text;
  v_events integer;
BEGIN
  w := ARRAY(SELECT x FROM json_populate_recordset(NULL::checkout_order_write, p_rows) x
             ORDER BY x.row_no);
  n := coalesce(cardinality(w), 0);
  IF n = 0 THEN
    RETURN;
  END IF;
  o_outcome := array_fill(NULL::text, ARRAY[n]);
  o_status := array_fill(NULL::integer, ARRAY[n]);
  o_text := array_fill(NULL::text, ARRAY[n]);
  o_events := array_fill(0, ARRAY[n]);
  v_way := array_fill('set'::text, ARRAY[n]);
  v_profile := array_fill(NULL::bigint, ARRAY[n]);
  v_refusal := array_fill(NULL::text, ARRAY[n]);
  v_old := array_fill(NULL::bigint, ARRAY[n]);
  v_new := array_fill(NULL::bigint, ARRAY[n]);
  v_seen := array_fill(false, ARRAY[n]);

  -- What the server's remembered answers said (see place_order).
  FOR r IN
    SELECT u.row_no FROM unnest(w) u
     WHERE NOT EXISTS (
       SELECT 1 FROM checkout_clients c JOIN merchants m ON m.id = c.merchant_id
        WHERE c.id = u.client_id AND c.merchant_id = u.merchant_id AND c.revoked_at IS NULL
          AND m.time_zone = u.time_zone
          AND (u.sortiment_id IS NULL OR (m.rules_version = u.rules_version AND EXISTS (
            SELECT 1 FROM sortiments s
             WHERE s.id = u.sortiment_id AND s.merchant_id = m.id
               AND s.version = u.menu_version AND s.current_gen = u.menu_gen))))
  LOOP
    o_outcome[r.row_no + 1] := 'stale';
    v_way[r.row_no + 1] := NULL;
  END LOOP;

  -- The customer card each order names; any other reference, and a reservation, one by one.
  FOR r IN
    SELECT u.row_no, u.reservation_id, c.profile_id FROM unnest(w) u
      LEFT JOIN LATERAL (
        SELECT c.profile_id FROM cards c
         WHERE c.merchant_id = u.merchant_id AND c.token_id = u.reference AND c.token_type = 0
           AND c.state = 'registered' AND c.profile_id IS NOT NULL
           AND (c.expires_at IS NULL OR c.expires_at > u.now)
         LIMIT 1) c ON true
     WHERE v_way[u.row_no + 1] = 'set'
  LOOP
    IF r.profile_id IS NULL OR r.reservation_id IS NOT NULL THEN
      v_way[r.row_no + 1] := 'one';
    ELSE
      v_profile[r.row_no + 1] := r.profile_id;
    END IF;
  END LOOP;

  -- The keys: one that another transaction works on is in flight; the new ones are claimed
  -- here; one seen before (its stored answer, another body, 24 hours past) goes one by one.
  FOR r IN
    SELECT u.row_no,
           pg_try_advisory_xact_lock(hashtextextended(u.client_id::text || ':' || u.idempotency_key, 15)) AS got
      FROM unnest(w) u
     WHERE v_way[u.row_no + 1] = 'set'
     ORDER BY u.row_no
  LOOP
    IF NOT r.got THEN
      o_outcome[r.row_no + 1] := 'in_flight';
      v_way[r.row_no + 1] := NULL;
    END IF;
  END LOOP;
  -- The first order of each key that no row holds yet (its row is written with the answer).
  SELECT coalesce(array_agg(c.row_no), '{}') INTO v_claimed
    FROM (SELECT DISTINCT ON (u.client_id, u.idempotency_key) u.row_no, u.client_id,
                 u.idempotency_key
            FROM unnest(w) u
           WHERE v_way[u.row_no + 1] = 'set'
           ORDER BY u.client_id, u.idempotency_key, u.row_no) c
   WHERE NOT EXISTS (SELECT 1 FROM checkout_idempotency_keys k
                      WHERE k.client_id = c.client_id AND k.key = c.idempotency_key);
  FOR i IN 1 .. n LOOP
    IF v_way[i] = 'set' AND NOT (i - 1 = ANY (v_claimed)) THEN
      v_way[i] := 'one';
    END IF;
  END LOOP;

  -- The profiles to charge, locked in the order of their ids (two batches never wait for each
  -- other in a circle), with the figures each order is decided on.
  FOR r IN
    SELECT u.row_no, p.account_id, p.is_charge_allowed, a.balance_minor,
           btrim(a.currency) AS currency, a.status = 'open' AS open,
           (SELECT COALESCE(sum(x.remaining_minor), 0) FROM checkout_reservations x
             WHERE x.profile_id = p.id AND x.status = 'active' AND x.expires_at > u.now) AS reserved
      FROM unnest(w) u
      JOIN profiles p ON p.id = v_profile[u.row_no + 1] AND p.merchant_id = u.merchant_id
      JOIN ledger_accounts a ON a.id = p.account_id
     WHERE v_way[u.row_no + 1] = 'set' AND u.charge
     ORDER BY p.id, u.row_no
       FOR NO KEY UPDATE OF p, a
  LOOP
    f_row := f_row || r.row_no;
    f_account := f_account || r.account_id;
    f_allowed := f_allowed || r.is_charge_allowed;
    f_balance := f_balance || r.balance_minor;
    f_currency := f_currency || r.currency;
    f_open := f_open || r.open;
    f_reserved := f_reserved || r.reserved;
    v_seen[r.row_no + 1] := true;
  END LOOP;

  -- The orders; a basketId ordered before (or twice in the batch) is refused.
  WITH ins AS (
    INSERT INTO checkout_orders (merchant_id, id, client_id, basket_id, profile_id, status,
      currency, total_gross_minor, charged_minor, receipt_id, priced, created_at)
    SELECT u.merchant_id, u.order_id, u.client_id, u.basket_id, v_profile[u.row_no + 1],
           'completed', u.currency, u.total_minor,
           CASE WHEN u.charge THEN u.total_minor ELSE 0 END, u.receipt_id, u.priced, u.now
      FROM unnest(w) u
     WHERE v_way[u.row_no + 1] = 'set'
     ORDER BY u.row_no
    ON CONFLICT (merchant_id, basket_id) DO NOTHING
    RETURNING id)
  SELECT coalesce(array_agg(ins.id), '{}') INTO v_inserted FROM ins;
  FOR i IN 1 .. n LOOP
    IF v_way[i] = 'set' AND NOT ((w[i]).order_id = ANY (v_inserted)) THEN
      v_refusal[i] := 'orderExists';
    ELSIF v_way[i] = 'set' AND (w[i]).charge AND NOT v_seen[i] THEN
      v_refusal[i] := 'profileReferenceUnusable';
    END IF;
  END LOOP;

  -- The charges, profile by profile in the order of the orders: planCharge
  -- (src/ledger/rules/checkout-rules.ts) without a reservation: never what reservations hold.
  FOR k IN 1 .. coalesce(cardinality(f_row), 0) LOOP
    i := f_row[k] + 1;
    o := w[i];
    IF v_account IS DISTINCT FROM f_account[k] THEN
      IF v_account IS NOT NULL THEN
        a_final := a_final || v_balance;
      END IF;
      v_account := f_account[k];
      v_balance := f_balance[k];
      a_id := a_id || v_account;
      a_start := a_start || v_balance;
    END IF;
    IF v_refusal[i] IS NOT NULL THEN
      CONTINUE;
    ELSIF NOT f_allowed[k] THEN
      v_refusal[i] := 'chargeNotAllowed';
    ELSIF f_currency[k] <> o.currency THEN
      v_refusal[i] := 'currencyMismatch';
    ELSIF o.total_minor > v_balance - f_reserved[k] OR o.total_minor > v_balance
          OR (o.total_minor > 0 AND NOT f_open[k]) THEN
      v_refusal[i] := 'checkoutInsufficientBalance';
    ELSE
      v_old[i] := v_balance;
      v_balance := v_balance - o.total_minor;
      v_new[i] := v_balance;
      IF o.total_minor > 0 THEN
        c_row := c_row || o.row_no;
      END IF;
    END IF;
  END LOOP;
  IF v_account IS NOT NULL THEN
    a_final := a_final || v_balance;
  END IF;

  -- The writes of the batch. The accounts were locked above: each must still hold what the
  -- charges were decided on, or the whole batch is undone (and its orders written one by one).
  UPDATE ledger_accounts a SET balance_minor = d.final
    FROM unnest(a_id, a_start, a_final) AS d(id, start, final)
   WHERE a.id = d.id AND a.balance_minor = d.start AND d.final <> d.start;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  IF v_count <> (SELECT count(*) FROM unnest(a_start, a_final) AS d(start, final) WHERE d.final <> d.start) THEN
    RAISE EXCEPTION 'place_orders: an account moved under its lock';
  END IF;
  INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
    credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
    tracking_unit_id, created_at, authorised_by, authorisation_sha256)
  SELECT u.merchant_id, 'charge:' || u.order_id, 'charge', p.account_id, u.liability_id,
         u.total_minor, u.currency, NULL, NULL, v_new[u.row_no + 1], NULL, u.now, 'checkout', NULL
    FROM unnest(c_row) AS c(row_no)
    JOIN unnest(w) u ON u.row_no = c.row_no
    JOIN profiles p ON p.id = v_profile[u.row_no + 1]
   ORDER BY u.row_no;
  INSERT INTO balance_transactions (merchant_id, id, profile_id, kind, status, amount_minor,
    currency, order_id, reservation_id, created_at, updated_at)
  SELECT u.merchant_id, u.transaction_id, v_profile[u.row_no + 1], 'charge', 'completed',
         u.total_minor, u.currency, u.order_id, NULL, u.now, u.now
    FROM unnest(c_row) AS c(row_no)
    JOIN unnest(w) u ON u.row_no = c.row_no
   ORDER BY u.row_no;
  -- One outbox message per webhook of the merchant, for the merchants that have any.
  FOR r IN
    SELECT DISTINCT u.row_no
      FROM unnest(c_row) AS c(row_no)
      JOIN unnest(w) u ON u.row_no = c.row_no
      JOIN webhooks h ON h.merchant_id = u.merchant_id
                     AND h.event = 'transaction.status.changed' AND h.deleted_at IS NULL
     ORDER BY u.row_no
  LOOP
    o := w[r.row_no + 1];
    o_events[r.row_no + 1] := checkout_status_changed(o.merchant_id, o.now, o.now_text,
      o.transaction_id, 'charge', 'completed', NULL, o.total_minor, o.currency, o.reference,
      o.basket_id);
  END LOOP;
  DELETE FROM checkout_orders x
   USING unnest(w) u
   WHERE x.id = u.order_id AND v_way[u.row_no + 1] = 'set' AND v_refusal[u.row_no + 1] IS NOT NULL
     AND v_refusal[u.row_no + 1] <> 'orderExists';
  INSERT INTO receipts (id, merchant_id, kind, source_ref, created_at)
  SELECT u.receipt_id, u.merchant_id, 'checkout_order', u.order_id, u.now
    FROM unnest(w) u
   WHERE v_way[u.row_no + 1] = 'set' AND v_refusal[u.row_no + 1] IS NULL
   ORDER BY u.row_no;
  -- The purchase notification of each order paid from the balance, as place_order queues it.
  INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at)
  SELECT u.merchant_id, 'purchase.notification',
         jsonb_build_object('receiptId', u.receipt_id, 'profileId', v_profile[u.row_no + 1],
           'event', 'order'), u.now
    FROM unnest(w) u
   WHERE v_way[u.row_no + 1] = 'set' AND v_refusal[u.row_no + 1] IS NULL AND u.charge
     AND u.total_minor > 0
   ORDER BY u.row_no;
  FOR i IN 1 .. n LOOP
    CONTINUE WHEN v_way[i] IS DISTINCT FROM 'set';
    IF v_refusal[i] IS NULL THEN
      o_outcome[i] := 'placed';
      o_events[i] := o_events[i] + CASE WHEN (w[i]).charge AND (w[i]).total_minor > 0 THEN 1 ELSE 0 END;
      o_status[i] := 200;
      o_text[i] := (w[i]).answer
        || CASE WHEN (w[i]).charge THEN ',"balance":{"oldAmount":' || v_old[i] || ',"newAmount":'
             || v_new[i] || ',"currency":' || (w[i]).currency_json || '}' ELSE '' END
        || ',"status":"completed"}';
    ELSE
      o_outcome[i] := 'refused';
      o_events[i] := 0;
      o_status[i] := (p_refusals -> v_refusal[i] ->> 'status')::integer;
      o_text[i] := p_refusals -> v_refusal[i] ->> 'body';
      IF o_status[i] IS NULL OR o_text[i] IS NULL THEN
        RAISE EXCEPTION 'place_orders: no answer for the refusal %', v_refusal[i];
      END IF;
    END IF;
  END LOOP;
  INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status,
    response_status, response_body, created_at, expires_at)
  SELECT u.client_id, u.idempotency_key, u.request_sha256, 'done', o_status[u.row_no + 1],
         o_text[u.row_no + 1], u.now, u.now + u.key_ttl_ms * interval '1 millisecond'
    FROM unnest(w) u
   WHERE v_way[u.row_no + 1] = 'set'
   ORDER BY u.row_no;

  -- The others, one by one, each in its own subtransaction: one's failure is its own.
  FOR i IN 1 .. n LOOP
    CONTINUE WHEN v_way[i] IS DISTINCT FROM 'one';
    o := w[i];
    BEGIN
      SELECT x.outcome, x.answer_status, x.answer_text, x.event_count
        INTO v_outcome, v_status, v_text, v_events
        FROM place_order(o.client_id, o.merchant_id, o.time_zone, o.sortiment_id,
          o.menu_version, o.menu_gen, o.rules_version, o.idempotency_key, o.request_sha256,
          o.now, o.now_text, o.key_ttl_ms, o.reference, o.otp_sha256, o.order_id, o.basket_id,
          o.receipt_id, o.currency, o.total_minor, o.charge, o.priced, o.liability_id,
          o.transaction_id, o.reservation_id, o.cancel_remaining, o.answer, o.currency_json,
          p_refusals) x;
      o_outcome[i] := v_outcome;
      o_status[i] := v_status;
      o_text[i] := v_text;
      o_events[i] := v_events;
    EXCEPTION WHEN OTHERS THEN
      o_outcome[i] := 'error';
      o_status[i] := NULL;
      o_text[i] := SQLSTATE || ' ' || SQLERRM;
      o_events[i] := 0;
    END;
  END LOOP;

  RETURN QUERY
    SELECT g - 1, o_outcome[g], o_status[g], o_text[g], o_events[g]
      FROM generate_series(1, n) AS g;
END $$;
