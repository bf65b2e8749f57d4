-- book_orders: the booking of checkout orders whose profiles are known (docs/decisions.md,
-- "Checkout v1": "Orders in one statement", "Balance, reservations, top-ups, refunds"; "One booking
-- of a checkout order"). The one booking of an order: a batch (place_orders) gives its orders, and
-- one order is a batch of one (book_order, for place_order and the order use case,
-- src/orders/order.service.ts). Each order is decided as if the orders before it in the batch had
-- been booked alone, one after the other; the rows are then written one statement per table where
-- the order of the rows does not matter.
--
-- Inputs: the orders (the batch's rows, checkout_order_write[]: declared anyarray, as the type is
-- a migration's (0022) and stored functions are created before the migrations run), the profile each names
-- (resolve_profile_reference; null: it names none) and whether that was by a one-time password.
-- Answers per order (ord: its position in the input, from 1): the refusal's error name, or the
-- order's answer text (p_answer, the answer up to its `vats` without the closing brace, with the
-- balance part and the status) and the number of outbox messages it wrote.
--
-- Locks, each set in the order of its ids so that two bookings never wait for each other in a
-- circle: the profiles charged and their accounts (every balance change of a profile takes this
-- lock first), then the budgets of the campaigns the orders book (lock_campaign_budgets, merchant
-- by merchant), then the reservations named, then the one-time passwords spent.
--
-- Per order, in this order: a profile must be named ('profileReferenceUnusable'); what it was
-- priced on (below: the customer's uses and tiers, the budgets); the order row
-- (a basketId ordered before, or by an order before it in the batch: 'orderExists'); the one-time
-- password it spends must be live and not spent ('profileReferenceUnusable'); then, for a charge,
-- the charge plan: the profile must allow charges ('chargeNotAllowed') in the order's currency
-- ('currencyMismatch'); a reservation must be the profile's, not cancelled and not expired
-- ('reservationNotUsable'); the charge takes the reservation's remaining amount first, then
-- unreserved balance, never what other live reservations hold, from an open account
-- ('checkoutInsufficientBalance'). A refused order books nothing: its row is removed again and
-- its basketId is free for an order after it.
--
-- An order that a campaign with a usage limit per customer or limited to status tiers may reward
-- (customer_uses: the profile, the uses it was priced on per campaign, the uses it books, and the
-- tier measures it was priced on with their bases) is booked only while its customer's uses and
-- measures, read under the customer's lock (consumer_state, tier_measures), are still those it was
-- priced on, and while no order before it in the batch is of the same customer; else it is refused with
-- 'customerUsesChanged' (place_orders leaves it to the order use case, which prices it again under
-- the lock). Its uses are written with it (order_campaign_usages).
--
-- An order given a campaign with a budget (budgets: what it books of each, as
-- add_campaign_budget_usage takes them) is booked only while each booking still fits what is left
-- of the budget under its lock, less what the orders before it in the batch booked
-- (budget_booking_fits: a redemption left, the discount within what is left), in the period it was
-- priced in; else it is refused with 'budgetsChanged' (place_orders leaves it to the order use
-- case, which prices it again under the lock). What the orders booked is added to the budgets, per
-- campaign and period, and kept per order (order_budget_bookings).
--
-- Then, for the orders booked: the charge posted on the double-entry ledger by post_transfers, whose
-- guard must hold as planned (if not, the whole booking fails: the plan read the locked rows); the
-- balance transaction and its status event (checkout_status_changed); the reservation's use and
-- its status event; the receipts (make_receipts); the purchase mail of an order paid from the
-- balance (queue_purchase_notifications); the spent one-time password.
CREATE OR REPLACE FUNCTION book_orders(w anyarray, p_profile bigint[], p_by_otp boolean[])
RETURNS TABLE (ord integer, refusal text, answer_text text, event_count integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  n integer := coalesce(cardinality(w), 0);
  i integer;
  j integer;
  k integer;
  o checkout_order_write;
  r record;
  -- Per order (index i).
  b_refusal text[];
  b_events integer[];
  b_inserted boolean[];
  b_deferred boolean[];
  b_charged boolean[];
  b_floor bigint[];
  b_balance_json text[];
  b_reserved bigint[];
  b_res integer[];
  b_res_old text[];
  b_res_new text[];
  v_ids text[];
  -- basketIds whose row a refused order of the batch gives back ('merchant:basketId').
  v_freed text[] := '{}';
  -- The rows of refused orders this booking inserted, to go again (their ids).
  v_drop text[] := '{}';
  -- The profiles charged and their accounts (index a), running balances.
  a_profile bigint[] := '{}';
  a_merchant bigint[] := '{}';
  a_account bigint[] := '{}';
  a_allowed boolean[] := '{}';
  a_balance bigint[] := '{}';
  a_currency text[] := '{}';
  a_open boolean[] := '{}';
  -- The reservations named (index s): as read, and as the orders before leave them.
  s_id text[] := '{}';
  s_key text[] := '{}';
  s_merchant bigint[] := '{}';
  s_profile bigint[] := '{}';
  s_expires timestamptz[] := '{}';
  s_status0 text[] := '{}';
  s_remaining0 bigint[] := '{}';
  s_status text[] := '{}';
  s_remaining bigint[] := '{}';
  s_updated timestamptz[] := '{}';
  -- The one-time passwords named (index t), and those the batch spends.
  t_key text[] := '{}';
  t_expires timestamptz[] := '{}';
  t_spent boolean[] := '{}';
  v_spent text[] := '{}';
  v_spent_merchant bigint[] := '{}';
  v_spent_sha text[] := '{}';
  v_spent_at timestamptz[] := '{}';
  -- The charges to post (index c), in the order of the orders.
  c_merchant bigint[] := '{}';
  c_account bigint[] := '{}';
  c_delta bigint[] := '{}';
  c_floor bigint[] := '{}';
  c_at timestamptz[] := '{}';
  c_currency text[] := '{}';
  c_transaction text[] := '{}';
  c_liability bigint[] := '{}';
  c_amount bigint[] := '{}';
  -- Each charge's order (index i), receipt and profile: the purchase mails.
  c_order integer[] := '{}';
  c_receipt text[] := '{}';
  c_profile bigint[] := '{}';
  -- The orders booked (index e), in the order of the orders: their receipts.
  e_receipt text[] := '{}';
  e_merchant bigint[] := '{}';
  e_order text[] := '{}';
  e_at timestamptz[] := '{}';
  -- One order's charge plan.
  a integer;
  s integer;
  v_balance bigint;
  v_new_balance bigint;
  v_reserved_live bigint;
  v_reserved_used bigint;
  v_unreserved bigint;
  v_res_remaining bigint;
  v_remaining bigint;
  v_res_status text;
  v_tx record;
  v_hooked boolean;
  -- The customers of the orders with customer_uses decided so far, and one order's uses read.
  u_profiles bigint[] := '{}';
  v_uses json;
  -- What is left of the budgets the orders book (index q, 'merchant:campaign'), as locked and as
  -- the orders before leave it (a left of null: not limited), and one order's bookings.
  q_key text[] := '{}';
  q_period text[] := '{}';
  q_discount bigint[] := '{}';
  q_redemptions bigint[] := '{}';
  v_budgeted boolean := false;
  -- Whether an order of the batch books a budget, or names a reservation, with its profile found.
  v_any_budgets boolean := false;
  v_any_reservation boolean := false;
  x record;
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  b_refusal := array_fill(NULL::text, ARRAY[n]);
  b_events := array_fill(0, ARRAY[n]);
  b_inserted := array_fill(false, ARRAY[n]);
  b_deferred := array_fill(false, ARRAY[n]);
  b_charged := array_fill(false, ARRAY[n]);
  b_floor := array_fill(NULL::bigint, ARRAY[n]);
  b_balance_json := array_fill(''::text, ARRAY[n]);
  b_reserved := array_fill(0::bigint, ARRAY[n]);
  b_res := array_fill(NULL::integer, ARRAY[n]);
  b_res_old := array_fill(NULL::text, ARRAY[n]);
  b_res_new := array_fill(NULL::text, ARRAY[n]);

  -- The profiles charged or whose uses an order books, locked with their accounts in the order of
  -- the profiles' ids, and what live reservations hold for each order at its time. Every statement reads the orders with
  -- unnest(w), once per statement and planned as a few rows (the rows are found by their keys):
  -- not generate_series(), planned as a thousand (a scan of the whole table), and not w[g] per
  -- row, which reads the array of orders from its start for every field of every order.
  FOR r IN
    SELECT p.id, p.merchant_id, p.account_id, p.is_charge_allowed, l.balance_minor,
           btrim(l.currency) AS currency, l.status = 'open' AS open
      FROM profiles p JOIN ledger_accounts l ON l.id = p.account_id
     WHERE (p.id, p.merchant_id) IN (
             SELECT p_profile[v.ordinality], v.merchant_id FROM unnest(w) WITH ORDINALITY AS v
              WHERE (v.charge OR v.customer_uses IS NOT NULL)
                AND p_profile[v.ordinality] IS NOT NULL)
     ORDER BY p.id
       FOR NO KEY UPDATE OF p, l
  LOOP
    a_profile := a_profile || r.id;
    a_merchant := a_merchant || r.merchant_id;
    a_account := a_account || r.account_id;
    a_allowed := a_allowed || r.is_charge_allowed;
    a_balance := a_balance || r.balance_minor;
    a_currency := a_currency || r.currency;
    a_open := a_open || r.open;
  END LOOP;
  -- The locks below that nearly no batch needs (budgets, reservations, one-time passwords) are
  -- looked for only when an order of the batch needs them: each statement, even one that finds
  -- nothing, costs the batch its start and end (docs/decisions.md, "Orders in one statement":
  -- "Statements a batch does not need").
  FOR i IN 1 .. n LOOP
    CONTINUE WHEN p_profile[i] IS NULL;
    o := w[i];
    v_any_budgets := v_any_budgets OR o.budgets IS NOT NULL;
    v_any_reservation := v_any_reservation OR (o.charge AND o.reservation_id IS NOT NULL);
  END LOOP;

  -- The budgets of the campaigns the orders book, locked merchant by merchant (each in the order of
  -- its campaigns and periods), read at the time of the merchant's first order in the batch.
  IF v_any_budgets THEN
    FOR r IN
      SELECT v.merchant_id, min(v.now) AS now,
             array_agg(DISTINCT (b->>'campaignId')::bigint) AS ids
        FROM unnest(w) WITH ORDINALITY AS v
        CROSS JOIN LATERAL json_array_elements(v.budgets) b
       WHERE v.budgets IS NOT NULL AND p_profile[v.ordinality] IS NOT NULL
       GROUP BY v.merchant_id
       ORDER BY v.merchant_id
    LOOP
      FOR x IN
        SELECT * FROM json_to_recordset(lock_campaign_budgets(r.merchant_id, r.ids, r.now))
          AS l("campaignId" bigint, period text, "discountLeft" bigint, "redemptionsLeft" bigint)
      LOOP
        q_key := q_key || (r.merchant_id || ':' || x."campaignId");
        q_period := q_period || x.period;
        q_discount := q_discount || x."discountLeft";
        q_redemptions := q_redemptions || x."redemptionsLeft";
      END LOOP;
    END LOOP;
  END IF;

  FOR r IN
    SELECT v.ordinality::integer AS g,
           (SELECT COALESCE(sum(x.remaining_minor), 0) FROM checkout_reservations x
             WHERE x.profile_id = p_profile[v.ordinality] AND x.status = 'active'
               AND x.expires_at > v.now) AS held
      FROM unnest(w) WITH ORDINALITY AS v
     WHERE v.charge AND p_profile[v.ordinality] IS NOT NULL
  LOOP
    b_reserved[r.g] := r.held;
  END LOOP;

  -- The reservations the charges name, locked in the order of their ids.
  IF v_any_reservation THEN
    FOR r IN
      SELECT x.id, x.merchant_id, x.profile_id, x.status, x.expires_at, x.remaining_minor
        FROM checkout_reservations x
       WHERE (x.merchant_id, x.id) IN (
               SELECT v.merchant_id, v.reservation_id FROM unnest(w) WITH ORDINALITY AS v
                WHERE v.charge AND v.reservation_id IS NOT NULL
                  AND p_profile[v.ordinality] IS NOT NULL)
       ORDER BY x.id
         FOR UPDATE
    LOOP
      s_id := s_id || r.id;
      s_key := s_key || (r.merchant_id || ':' || r.id);
      s_merchant := s_merchant || r.merchant_id;
      s_profile := s_profile || r.profile_id;
      s_expires := s_expires || r.expires_at;
      s_status0 := s_status0 || r.status;
      s_remaining0 := s_remaining0 || r.remaining_minor;
      s_status := s_status || r.status;
      s_remaining := s_remaining || r.remaining_minor;
      s_updated := s_updated || NULL::timestamptz;
    END LOOP;
  END IF;

  -- The one-time passwords the orders spend, locked in the order of their hashes.
  IF true = ANY (p_by_otp) THEN
    FOR r IN
      SELECT x.merchant_id, x.otp_sha256, x.expires_at, x.spent_at IS NOT NULL AS spent
        FROM profile_otps x
       WHERE (x.merchant_id, x.otp_sha256) IN (
               SELECT v.merchant_id, v.otp_sha256 FROM unnest(w) WITH ORDINALITY AS v
                WHERE p_by_otp[v.ordinality] AND p_profile[v.ordinality] IS NOT NULL)
       ORDER BY x.otp_sha256, x.merchant_id
         FOR UPDATE
    LOOP
      t_key := t_key || (r.merchant_id || ':' || r.otp_sha256);
      t_expires := t_expires || r.expires_at;
      t_spent := t_spent || r.spent;
    END LOOP;
  END IF;

  -- The order rows, the first order of each basketId first.
  WITH ins AS (
    INSERT INTO checkout_orders (merchant_id, id, client_id, basket_id, profile_id, status,
      currency, total_gross_minor, charged_minor, receipt_id, priced, created_at)
    SELECT v.merchant_id, v.order_id, v.client_id, v.basket_id, p_profile[v.ordinality],
           'completed', v.currency, v.total_minor,
           CASE WHEN v.charge THEN v.total_minor ELSE 0 END, v.receipt_id,
           v.priced, v.now
      FROM unnest(w) WITH ORDINALITY AS v
     WHERE p_profile[v.ordinality] IS NOT NULL
     ORDER BY v.ordinality
    ON CONFLICT (merchant_id, basket_id) DO NOTHING
    RETURNING id)
  SELECT coalesce(array_agg(ins.id), '{}') INTO v_ids FROM ins;

  -- Each order decided in turn, as if those before it had been booked alone.
  FOR i IN 1 .. n LOOP
    o := w[i];
    IF p_profile[i] IS NULL THEN
      b_refusal[i] := 'profileReferenceUnusable';
      CONTINUE;
    END IF;
    -- First what the order was priced on, as the separate statements price it (and refuse its
    -- total) before they book: changed since, the order is theirs to price again and answer.
    IF o.customer_uses IS NOT NULL THEN
      IF (o.customer_uses->>'profileId')::bigint IS DISTINCT FROM p_profile[i]
         OR p_profile[i] = ANY (u_profiles) THEN
        b_refusal[i] := 'customerUsesChanged';
      ELSE
        v_uses := consumer_state(o.merchant_id, p_profile[i], NULL,
          '{}'::bigint[], ARRAY(SELECT json_object_keys(o.customer_uses->'seen')::bigint),
          o.now)->'usages';
        IF EXISTS (
             SELECT 1 FROM json_each_text(o.customer_uses->'seen') x
              WHERE x.value::integer <> coalesce((v_uses->>x.key)::integer, 0)) THEN
          b_refusal[i] := 'customerUsesChanged';
        ELSIF json_typeof(o.customer_uses->'tiers') = 'object' THEN
          -- Priced on the customer's tiers too: their measures as then, per scheme.
          v_uses := tier_measures(o.merchant_id, p_profile[i], NULL,
            o.customer_uses->'tiers'->'bases', o.customer_uses->'tiers'->>'timeZone', o.now);
          IF EXISTS (
               SELECT 1 FROM json_each_text(o.customer_uses->'tiers'->'seen') x
                WHERE x.value::numeric <> coalesce((v_uses->>x.key)::numeric, 0)) THEN
            b_refusal[i] := 'customerUsesChanged';
          END IF;
        END IF;
      END IF;
      u_profiles := u_profiles || p_profile[i];
    END IF;

    -- Each budget it books still has room for it: as locked, less what the orders before booked.
    IF o.budgets IS NOT NULL AND b_refusal[i] IS NULL THEN
      FOR x IN
        SELECT * FROM json_to_recordset(o.budgets)
          AS l("campaignId" bigint, period text, "discountMinor" bigint, redemptions integer)
      LOOP
        j := array_position(q_key, o.merchant_id || ':' || x."campaignId");
        IF j IS NULL OR q_period[j] IS DISTINCT FROM x.period
           OR NOT budget_booking_fits(q_discount[j], q_redemptions[j], x."discountMinor",
                                      x.redemptions) THEN
          b_refusal[i] := 'budgetsChanged';
        END IF;
      END LOOP;
    END IF;
    IF b_refusal[i] IS NOT NULL THEN
      -- Its row, if this booking inserted it, goes again: its basketId is free for an order after it.
      IF o.order_id = ANY (v_ids) THEN
        v_drop := v_drop || o.order_id;
        v_freed := v_freed || (o.merchant_id || ':' || o.basket_id);
      END IF;
      CONTINUE;
    END IF;

    IF o.order_id = ANY (v_ids) THEN
      b_inserted[i] := true;
    ELSE
      k := array_position(v_freed, o.merchant_id || ':' || o.basket_id);
      IF k IS NULL THEN
        b_refusal[i] := 'orderExists';
        CONTINUE;
      END IF;
      v_freed[k] := NULL;
      b_deferred[i] := true;
    END IF;

    IF p_by_otp[i] THEN
      j := array_position(t_key, o.merchant_id || ':' || o.otp_sha256);
      IF j IS NULL OR t_expires[j] <= o.now OR t_spent[j]
         OR (o.merchant_id || ':' || o.otp_sha256) = ANY (v_spent) THEN
        b_refusal[i] := 'profileReferenceUnusable';
      END IF;
    END IF;

    IF o.charge AND b_refusal[i] IS NULL THEN
      a := array_position(a_profile, p_profile[i]);
      IF a_merchant[a] IS DISTINCT FROM o.merchant_id THEN
        a := NULL;
      END IF;
      s := NULL;
      IF a IS NULL THEN
        b_refusal[i] := 'profileReferenceUnusable';
      ELSIF NOT a_allowed[a] THEN
        b_refusal[i] := 'chargeNotAllowed';
      ELSIF a_currency[a] <> o.currency THEN
        b_refusal[i] := 'currencyMismatch';
      ELSIF o.reservation_id IS NOT NULL THEN
        s := array_position(s_key, o.merchant_id || ':' || o.reservation_id);
        IF s IS NULL OR s_profile[s] <> p_profile[i] OR s_status[s] = 'cancelled'
           OR s_expires[s] <= o.now THEN
          b_refusal[i] := 'reservationNotUsable';
        END IF;
      END IF;
      IF b_refusal[i] IS NULL THEN
        v_balance := a_balance[a];
        -- What live reservations hold at this order's time: as read, changed by the orders before.
        v_reserved_live := b_reserved[i];
        FOR j IN 1 .. coalesce(cardinality(s_id), 0) LOOP
          IF s_updated[j] IS NOT NULL AND s_profile[j] = p_profile[i] AND s_expires[j] > o.now THEN
            v_reserved_live := v_reserved_live
              + CASE WHEN s_status[j] = 'active' THEN s_remaining[j] ELSE 0 END
              - CASE WHEN s_status0[j] = 'active' THEN s_remaining0[j] ELSE 0 END;
          END IF;
        END LOOP;
        v_reserved_used := 0;
        IF s IS NOT NULL THEN
          v_res_remaining := s_remaining[s];
          v_reserved_used := least(v_res_remaining, o.total_minor);
        END IF;
        v_unreserved := o.total_minor - v_reserved_used;
        IF v_unreserved > v_balance - v_reserved_live OR o.total_minor > v_balance
           OR (o.total_minor > 0 AND NOT a_open[a]) THEN
          b_refusal[i] := 'checkoutInsufficientBalance';
        END IF;
      END IF;
      IF b_refusal[i] IS NULL THEN
        v_new_balance := v_balance;
        IF o.total_minor > 0 THEN
          -- After the charge the account must still cover every other live hold.
          b_charged[i] := true;
          b_floor[i] := o.total_minor + v_reserved_live - v_reserved_used;
          v_new_balance := v_balance - o.total_minor;
          a_balance[a] := v_new_balance;
          c_merchant := c_merchant || o.merchant_id;
          c_account := c_account || a_account[a];
          c_delta := c_delta || -o.total_minor;
          c_floor := c_floor || b_floor[i];
          c_at := c_at || o.now;
          c_currency := c_currency || o.currency;
          c_transaction := c_transaction || ('charge:' || o.order_id);
          c_liability := c_liability || o.liability_id;
          c_amount := c_amount || o.total_minor;
          c_order := c_order || i;
          c_receipt := c_receipt || o.receipt_id;
          c_profile := c_profile || p_profile[i];
        END IF;
        b_balance_json[i] := ',"balance":{"oldAmount":' || v_balance || ',"newAmount":'
          || v_new_balance || ',"currency":' || o.currency_json;
        IF s IS NOT NULL THEN
          v_remaining := CASE WHEN o.cancel_remaining THEN 0
                              ELSE v_res_remaining - v_reserved_used END;
          v_res_status := CASE WHEN v_remaining = 0 THEN 'used' ELSE 'active' END;
          b_res[i] := s;
          b_res_old[i] := s_status[s];
          b_res_new[i] := v_res_status;
          s_remaining[s] := v_remaining;
          s_status[s] := v_res_status;
          s_updated[s] := o.now;
          -- Holds after the charge: the others, and what this reservation still holds.
          b_balance_json[i] := b_balance_json[i]
            || ',"reservation":{"oldAmountExcludingReservation":' || (v_balance - v_reserved_live)
            || ',"newAmountExcludingReservation":'
            || (v_new_balance - (v_reserved_live - v_res_remaining + v_remaining))
            || ',"reservedAmountRemaining":' || v_remaining
            || ',"reservedAmountUsed":' || v_reserved_used
            || ',"unreservedAmountUsed":' || v_unreserved || '}';
        END IF;
        b_balance_json[i] := b_balance_json[i] || '}';
      END IF;
    END IF;

    IF b_refusal[i] IS NOT NULL THEN
      -- The order's row goes again: its basketId is free for an order after it.
      v_freed := v_freed || (o.merchant_id || ':' || o.basket_id);
      IF b_inserted[i] THEN
        v_drop := v_drop || o.order_id;
      END IF;
      CONTINUE;
    END IF;
    IF o.budgets IS NOT NULL THEN
      FOR x IN
        SELECT * FROM json_to_recordset(o.budgets)
          AS l("campaignId" bigint, "discountMinor" bigint, redemptions integer)
      LOOP
        j := array_position(q_key, o.merchant_id || ':' || x."campaignId");
        q_discount[j] := q_discount[j] - x."discountMinor";
        q_redemptions[j] := q_redemptions[j] - x.redemptions;
      END LOOP;
      v_budgeted := true;
    END IF;
    e_receipt := e_receipt || o.receipt_id;
    e_merchant := e_merchant || o.merchant_id;
    e_order := e_order || o.order_id;
    e_at := e_at || o.now;
    IF p_by_otp[i] THEN
      v_spent := v_spent || (o.merchant_id || ':' || o.otp_sha256);
      v_spent_merchant := v_spent_merchant || o.merchant_id;
      v_spent_sha := v_spent_sha || o.otp_sha256;
      v_spent_at := v_spent_at || o.now;
    END IF;
  END LOOP;

  -- The rows of the refused orders go; an order whose basketId a refused one gave back gets its row.
  -- Each statement on a table is found by its key (an array of ids) and runs only when there is
  -- something to do: the function's plans are generic, and a join of the table with the batch's
  -- positions would read the whole table (a whole order table per batch, found by profiling).
  IF cardinality(v_drop) > 0 THEN
    DELETE FROM checkout_orders x WHERE x.id = ANY (v_drop);
  END IF;
  IF true = ANY (b_deferred) THEN
    INSERT INTO checkout_orders (merchant_id, id, client_id, basket_id, profile_id, status,
      currency, total_gross_minor, charged_minor, receipt_id, priced, created_at)
    SELECT v.merchant_id, v.order_id, v.client_id, v.basket_id, p_profile[v.ordinality],
           'completed', v.currency, v.total_minor,
           CASE WHEN v.charge THEN v.total_minor ELSE 0 END, v.receipt_id,
           v.priced, v.now
      FROM unnest(w) WITH ORDINALITY AS v
     WHERE b_deferred[v.ordinality] AND b_refusal[v.ordinality] IS NULL
     ORDER BY v.ordinality;
  END IF;

  -- The charges on the ledger, in the order of the orders, as one batch of postings; every guard
  -- must hold as planned.
  k := coalesce(cardinality(c_account), 0);
  IF k > 0 THEN
    IF k <> (SELECT count(*) FROM post_transfers(c_merchant, c_account, c_delta, c_floor,
               array_fill(NULL::bigint, ARRAY[k]), c_at, c_currency, c_transaction,
               array_fill('charge'::text, ARRAY[k]), c_account, c_liability, c_amount,
               array_fill(NULL::bigint, ARRAY[k]), array_fill(NULL::text, ARRAY[k]),
               array_fill(NULL::text, ARRAY[k]), array_fill('checkout'::text, ARRAY[k]),
               array_fill(NULL::text, ARRAY[k]))) THEN
      RAISE EXCEPTION 'book_orders: the ledger refused a planned charge';
    END IF;
  END IF;
  INSERT INTO balance_transactions (merchant_id, id, profile_id, kind, status, amount_minor,
    currency, order_id, reservation_id, created_at, updated_at)
  SELECT v.merchant_id, v.transaction_id, p_profile[v.ordinality], 'charge', 'completed',
         v.total_minor, v.currency, v.order_id, s_id[b_res[v.ordinality]], v.now,
         v.now
    FROM unnest(w) WITH ORDINALITY AS v
   WHERE b_charged[v.ordinality]
   ORDER BY v.ordinality;

  -- The status events and the reservations' use, order by order; a batch whose merchants have no
  -- live webhook for the events (nearly always) writes none, asked once (webhook_subscribed).
  v_hooked := webhook_subscribed(c_merchant, 'transaction.status.changed');
  FOR i IN 1 .. n LOOP
    CONTINUE WHEN NOT (b_charged[i] AND v_hooked) AND b_res[i] IS NULL;
    o := w[i];
    IF b_charged[i] AND v_hooked THEN
      b_events[i] := b_events[i] + checkout_status_changed(o.merchant_id, o.now, o.now_text,
        o.transaction_id, 'charge', 'completed', NULL, o.total_minor, o.currency, o.reference,
        o.basket_id);
    END IF;
    s := b_res[i];
    IF s IS NOT NULL AND b_res_new[i] <> b_res_old[i] THEN
      SELECT t.id, t.status, t.amount_minor INTO v_tx FROM balance_transactions t
       WHERE t.kind = 'reservation' AND t.reservation_id = s_id[s]
       LIMIT 1 FOR UPDATE;
      IF FOUND AND v_tx.status <> b_res_new[i] THEN
        UPDATE balance_transactions t SET status = b_res_new[i], updated_at = o.now
         WHERE t.id = v_tx.id;
        b_events[i] := b_events[i] + checkout_status_changed(o.merchant_id, o.now, o.now_text,
          v_tx.id, 'reservation', b_res_new[i], v_tx.status, v_tx.amount_minor, o.currency,
          o.reference, o.basket_id);
      END IF;
    END IF;
  END LOOP;
  IF cardinality(s_id) > 0 THEN
    UPDATE checkout_reservations x
       SET remaining_minor = u.remaining, status = u.status, updated_at = u.updated
      FROM unnest(s_id, s_merchant, s_remaining, s_status, s_updated)
             AS u(id, merchant_id, remaining, status, updated)
     WHERE u.updated IS NOT NULL AND x.id = u.id AND x.merchant_id = u.merchant_id;
  END IF;

  -- The receipts, the purchase mails of the orders paid from the balance, the spent passwords.
  IF cardinality(e_receipt) > 0 THEN
    -- Each is new: its order's row was inserted above, and an order's receipt is made only here.
    PERFORM 1 FROM make_receipts(e_receipt, e_merchant, 'checkout_order', e_order, e_at, true);
  END IF;
  -- An order paid from the balance sends the consumer the purchase mail (docs/decisions.md, "The
  -- purchase mail of an order paid from the balance"), queued for the batch's charges in one call;
  -- the profile is a customer card's or a one-time password's, never a gift card's.
  IF cardinality(c_order) > 0 THEN
    FOR r IN
      SELECT q.ord AS k
        FROM queue_purchase_notifications(c_merchant, c_receipt, c_profile, 'order', c_at) q
    LOOP
      b_events[c_order[r.k]] := b_events[c_order[r.k]] + 1;
    END LOOP;
  END IF;
  -- The uses of the orders booked that a campaign limited per customer rewards.
  IF cardinality(u_profiles) > 0 THEN
    INSERT INTO order_campaign_usages (merchant_id, order_id, campaign_id, profile_id, used,
      created_at)
    SELECT v.merchant_id, v.order_id, (u->>'campaignId')::bigint, p_profile[v.ordinality],
           (u->>'uses')::integer, v.now
      FROM unnest(w) WITH ORDINALITY AS v
      CROSS JOIN LATERAL json_array_elements(v.customer_uses->'book') u
     WHERE v.customer_uses IS NOT NULL AND b_refusal[v.ordinality] IS NULL;
  END IF;
  -- What the orders booked of their campaigns' budgets: added per campaign and period within the
  -- limits (add_campaign_budget_usage, which raises if one does not fit: the plan read the locked
  -- rows), and kept per order for a refund to give back.
  IF v_budgeted THEN
    FOR r IN
      SELECT s.merchant_id, json_agg(json_build_object('campaignId', s.campaign_id,
               'period', s.period, 'discountMinor', s.discount, 'redemptions', s.redemptions)
               ORDER BY s.campaign_id) AS budgets
        FROM (SELECT v.merchant_id, (b->>'campaignId')::bigint AS campaign_id, b->>'period' AS period,
                     sum((b->>'discountMinor')::bigint) AS discount,
                     sum((b->>'redemptions')::integer) AS redemptions
                FROM unnest(w) WITH ORDINALITY AS v
                CROSS JOIN LATERAL json_array_elements(v.budgets) b
               WHERE v.budgets IS NOT NULL AND b_refusal[v.ordinality] IS NULL
               GROUP BY 1, 2, 3) s
       GROUP BY s.merchant_id
       ORDER BY s.merchant_id
    LOOP
      PERFORM add_campaign_budget_usage(r.merchant_id, r.budgets);
    END LOOP;
    INSERT INTO order_budget_bookings (merchant_id, order_id, campaign_id, period, discount_minor,
      redemptions, booked_at)
    SELECT v.merchant_id, v.order_id, (b->>'campaignId')::bigint, b->>'period',
           (b->>'discountMinor')::bigint, (b->>'redemptions')::integer, v.now
      FROM unnest(w) WITH ORDINALITY AS v
      CROSS JOIN LATERAL json_array_elements(v.budgets) b
     WHERE v.budgets IS NOT NULL AND b_refusal[v.ordinality] IS NULL;
  END IF;
  IF cardinality(v_spent) > 0 THEN
    UPDATE profile_otps x SET spent_at = u.at
      FROM unnest(v_spent_merchant, v_spent_sha, v_spent_at) AS u(merchant_id, sha, at)
     WHERE x.merchant_id = u.merchant_id AND x.otp_sha256 = u.sha;
  END IF;

  RETURN QUERY
    SELECT v.ordinality::integer AS g, b_refusal[v.ordinality],
           CASE WHEN b_refusal[v.ordinality] IS NULL
                THEN v.answer || b_balance_json[v.ordinality] || ',"status":"completed"}' END,
           CASE WHEN b_refusal[v.ordinality] IS NULL THEN b_events[v.ordinality] ELSE 0 END
      FROM unnest(w) WITH ORDINALITY AS v;
END $$;
