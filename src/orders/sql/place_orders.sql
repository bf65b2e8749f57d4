-- place_orders: the checkout orders of a batch (group commit, src/orders/order-write.store.ts), in
-- one statement and one transaction (docs/decisions.md, "Checkout v1": "Orders in one statement",
-- "Idempotency").
--
-- The orders whose Idempotency-Key is new, nearly all of them, are booked together by
-- book_orders, the one booking of an order (charge plan, posting through post_transfers, events,
-- answer), as if each were booked alone in the order of the orders. An order whose key was seen
-- before (its stored answer, another body, 24 hours past) goes through place_order afterwards, in
-- its own subtransaction. A batch that fails as a whole is written again order by order.
--
-- Each new Idempotency-Key is written once, with its answer: the keys are looked up, not claimed
-- (a key another transaction works on is locked by pg_try_advisory_xact_lock, taken just before,
-- or inserted by it, committed or not), and inserted at the end with their answers; a key another
-- writer inserted after the lookup makes that insert fail, which undoes the batch, and its orders
-- are written again one by one, each then finding the key. An order booking a customer's uses
-- (customer_uses) or a budget (budgets) that book_orders refuses for a change of them is 'stale',
-- its key not written.
-- The batch's rows have the composite type checkout_order_write (migration 0022): p_rows is their
-- JSON but for the two long texts, each order's stored pricing (p_priced) and answer (p_answers),
-- which come as one text each, joined by U+001E in the order of row_no (src/store/json-texts.ts):
-- the pricing is parsed once, the answer not at all.
-- Its statements, and those of the functions it calls, keep their generic plans
-- (plan_cache_mode, docs/decisions.md "Orders in one statement": "Plans kept"): left to choose,
-- PostgreSQL planned some of them afresh for every batch, each with the batch's arrays copied in.
CREATE OR REPLACE FUNCTION place_orders(p_rows json, p_priced text, p_answers text, p_refusals json)
RETURNS TABLE (row_no integer, outcome text, answer_status integer, answer_text text,
  event_count integer)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
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
  v_by_otp boolean[];
  v_claimed integer[];
  v_set integer[];
  -- The orders book_orders books (those of v_set), their profiles and how they were named.
  b_w checkout_order_write[];
  b_profile bigint[];
  b_by_otp boolean[];
  v_priced text[];
  v_answers text[];
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
  v_priced := string_to_array(p_priced, E'\x1e');
  v_answers := string_to_array(p_answers, E'\x1e');
  FOR i IN 1 .. n LOOP
    w[i].priced := v_priced[w[i].row_no + 1]::json;
    w[i].answer := v_answers[w[i].row_no + 1];
  END LOOP;
  o_outcome := array_fill(NULL::text, ARRAY[n]);
  o_status := array_fill(NULL::integer, ARRAY[n]);
  o_text := array_fill(NULL::text, ARRAY[n]);
  o_events := array_fill(0, ARRAY[n]);
  v_way := array_fill('set'::text, ARRAY[n]);
  v_profile := array_fill(NULL::bigint, ARRAY[n]);
  v_by_otp := array_fill(false, ARRAY[n]);

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

  -- The profile each order names (resolve_profile_reference; none: book_orders refuses it).
  FOR r IN
    SELECT u.row_no, x.profile_id, x.by_otp FROM unnest(w) u
      JOIN LATERAL resolve_profile_reference(u.merchant_id, u.reference, u.otp_sha256, u.now) x
        ON true
     WHERE v_way[u.row_no + 1] = 'set'
  LOOP
    v_profile[r.row_no + 1] := r.profile_id;
    v_by_otp[r.row_no + 1] := r.by_otp;
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
    -- An order booking a customer's uses or a budget is booked here only with its key new; else the
    -- order use case takes it (its key's answer, or the order priced again under the locks).
    IF v_way[i] = 'one' AND (w[i].customer_uses IS NOT NULL OR w[i].budgets IS NOT NULL) THEN
      o_outcome[i] := 'stale';
      v_way[i] := NULL;
    END IF;
  END LOOP;

  -- The orders, booked together by book_orders in the order of the orders (as if each were
  -- booked alone, one after the other; a basketId ordered before, or earlier in the batch, is
  -- refused). book_orders locks the profiles in the order of their ids: two batches never wait for
  -- each other in a circle.
  v_set := ARRAY(SELECT g FROM generate_series(1, n) g WHERE v_way[g] = 'set' ORDER BY g);
  IF cardinality(v_set) > 0 THEN
    -- Nearly always every order of the batch: then the batch as it is.
    IF cardinality(v_set) = n THEN
      b_w := w;
      b_profile := v_profile;
      b_by_otp := v_by_otp;
    ELSE
      b_w := ARRAY(SELECT w[g] FROM unnest(v_set) WITH ORDINALITY AS x(g, k) ORDER BY k);
      b_profile := ARRAY(SELECT v_profile[g] FROM unnest(v_set) WITH ORDINALITY AS x(g, k) ORDER BY k);
      b_by_otp := ARRAY(SELECT v_by_otp[g] FROM unnest(v_set) WITH ORDINALITY AS x(g, k) ORDER BY k);
    END IF;
    FOR r IN
      SELECT b.ord, b.refusal, b.answer_text, b.event_count
        FROM book_orders(b_w, b_profile, b_by_otp) b
    LOOP
      i := v_set[r.ord];
      IF r.refusal IS NULL THEN
        o_outcome[i] := 'placed';
        o_status[i] := 200;
        o_text[i] := r.answer_text;
        o_events[i] := r.event_count;
      ELSIF r.refusal IN ('customerUsesChanged', 'budgetsChanged') THEN
        -- The customer's uses, or what is left of a budget, changed since the order was priced:
        -- the order use case prices it again under the locks, and takes the key, which is not
        -- written here.
        o_outcome[i] := 'stale';
        v_way[i] := NULL;
      ELSE
        o_outcome[i] := 'refused';
        o_events[i] := 0;
        SELECT x.status, x.body INTO v_status, v_text
          FROM order_refusal(p_refusals, r.refusal, w[i].request_id) x;
        o_status[i] := v_status;
        o_text[i] := v_text;
      END IF;
    END LOOP;
  END IF;
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
          p_refusals, o.request_id) x;
      o_outcome[i] := v_outcome;
      o_status[i] := v_status;
      o_text[i] := v_text;
      o_events[i] := v_events;
    EXCEPTION WHEN OTHERS THEN
      o_outcome[i] := 'error';
      o_status[i] := NULL;
      -- The server reads the SQLSTATE back from this text (failedOnItsOwn, order-write.store.ts).
      o_text[i] := SQLSTATE || ' ' || SQLERRM;
      o_events[i] := 0;
    END;
  END LOOP;

  RETURN QUERY
    SELECT g - 1, o_outcome[g], o_status[g], o_text[g], o_events[g]
      FROM generate_series(1, n) AS g;
END $$;
