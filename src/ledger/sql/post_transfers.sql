-- post_transfers: postings on the double-entry ledger, as a batch (docs/decisions.md, "Cards and
-- balances", "Balance, reservations, top-ups, refunds"; docs/architecture.md, "Where each rule
-- lives"). The one place a transfer is booked: a checkout booking posts its orders' charges here
-- in one call (book_orders), and post_transfer, after the terminal and card checks of a single
-- top-up, withdrawal or refund, posts a batch of one.
--
-- The postings of an account apply in the order given (ord: a posting's position in the input,
-- from 1). Each has a floor and perhaps a ceiling for the account's balance before it: the
-- balance after the postings before it must be at least the floor and, when a ceiling is given,
-- at most the ceiling (a posting without a floor is refused). The accounts are read under their
-- row locks (an open account of the posting's merchant), each posting's guard is checked against
-- the balance the postings before it left, and the UPDATE of the accounts and the INSERT of the
-- immutable transfers write what that check found. An account whose guard does not hold books
-- none of its postings: no row back for them. Accounts are locked in the order of their ids, so that two batches never wait for each
-- other in a circle. A repeated transaction id violates the unique key and undoes the statement.
--
-- The accounts a transfer names exist: the transfers carry no foreign keys (migration 0048;
-- docs/decisions.md, "The ledger's references checked by its one writer"). This function writes
-- every posting (the one other writer, a card's merge, postMerge in src/ledger/ledger.store.ts,
-- updates both accounts it names as its merchant's before writing); the account it posts to is read under its lock with the
-- posting's merchant (so that merchant exists: the account references it), and every other
-- account a booked transfer names is looked up once per call below; a missing one fails the
-- statement with foreign_key_violation (23503), as the foreign keys did. Accounts are never
-- deleted and keep their id and merchant (ledger_accounts_kept), so what was checked stays true.
CREATE OR REPLACE FUNCTION post_transfers(
  p_merchant_id bigint[], p_account_id bigint[], p_delta_minor bigint[],
  p_min_balance_minor bigint[], p_max_balance_minor bigint[], p_now timestamptz[],
  p_currency text[], p_transaction_id text[], p_kind text[], p_debit_id bigint[],
  p_credit_id bigint[], p_amount_minor bigint[], p_card_id bigint[], p_token_id text[],
  p_unit_id text[], p_authorised_by text[], p_authorisation_sha256 text[])
RETURNS TABLE (ord integer, transfer_id bigint, balance_after_minor bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  n integer := coalesce(cardinality(p_account_id), 0);
  i integer;
  k integer;
  r record;
  v_after_one bigint;
  -- The accounts (index k), in the order of their ids: as read, and as the postings leave them.
  x_id bigint[] := '{}';
  x_merchant bigint[] := '{}';
  x_ok boolean[] := '{}';
  x_start bigint[] := '{}';
  x_balance bigint[] := '{}';
  -- Per posting (index i): its account's index, and the balance after it (null: not booked).
  v_account integer[];
  v_after bigint[];
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  -- One posting (every single top-up, withdrawal and refund): the same guard and insert, as two
  -- plain statements; the batch's grouping costs more than the posting itself.
  IF n = 1 THEN
    UPDATE ledger_accounts a SET balance_minor = a.balance_minor + p_delta_minor[1]
     WHERE a.id = p_account_id[1] AND a.merchant_id = p_merchant_id[1] AND a.status = 'open'
       AND a.balance_minor >= p_min_balance_minor[1]
       AND (p_max_balance_minor[1] IS NULL OR a.balance_minor <= p_max_balance_minor[1])
    RETURNING a.balance_minor INTO v_after_one;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(ARRAY[p_debit_id[1], p_credit_id[1]]) AS u(id)
                WHERE u.id <> p_account_id[1]
                  AND NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = u.id)) THEN
      RAISE EXCEPTION 'post_transfers: a transfer names an account that does not exist'
        USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN QUERY
      INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
        credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
        tracking_unit_id, created_at, authorised_by, authorisation_sha256)
      VALUES (p_merchant_id[1], p_transaction_id[1], p_kind[1], p_debit_id[1], p_credit_id[1],
        p_amount_minor[1], p_currency[1], p_card_id[1], p_token_id[1], v_after_one, p_unit_id[1],
        p_now[1], p_authorised_by[1], p_authorisation_sha256[1])
      RETURNING 1, id, balance_after_minor;
    RETURN;
  END IF;
  -- A batch: the accounts locked in the order of their ids and read; each posting's guard checked
  -- in the order given against the balance the postings before it left; then one UPDATE of the
  -- accounts whose guards all hold and one INSERT of their transfers.
  FOR r IN
    SELECT a.id, a.merchant_id, a.status = 'open' AS open, a.balance_minor
      FROM ledger_accounts a WHERE a.id = ANY (p_account_id) ORDER BY a.id
       FOR NO KEY UPDATE
  LOOP
    x_id := x_id || r.id;
    x_merchant := x_merchant || r.merchant_id;
    x_ok := x_ok || r.open;
    x_start := x_start || r.balance_minor;
    x_balance := x_balance || r.balance_minor;
  END LOOP;
  v_account := array_fill(NULL::integer, ARRAY[n]);
  FOR i IN 1 .. n LOOP
    k := array_position(x_id, p_account_id[i]);
    v_account[i] := k;
    CONTINUE WHEN k IS NULL OR NOT x_ok[k];
    IF x_merchant[k] <> p_merchant_id[i] OR NOT (x_balance[k] >= p_min_balance_minor[i])
       OR x_balance[k] > p_max_balance_minor[i] THEN
      x_ok[k] := false;
    ELSE
      x_balance[k] := x_balance[k] + p_delta_minor[i];
    END IF;
  END LOOP;
  -- The balance after each posting of an account that books.
  v_after := array_fill(NULL::bigint, ARRAY[n]);
  x_balance := x_start;
  FOR i IN 1 .. n LOOP
    k := v_account[i];
    CONTINUE WHEN k IS NULL OR NOT x_ok[k];
    x_balance[k] := x_balance[k] + p_delta_minor[i];
    v_after[i] := x_balance[k];
  END LOOP;
  UPDATE ledger_accounts a SET balance_minor = u.balance
    FROM unnest(x_id, x_balance, x_ok) AS u(id, balance, ok)
   WHERE u.ok AND a.id = u.id;
  -- The other accounts the booked transfers name (a checkout batch: its merchants' liability
  -- accounts), each looked up once; the accounts read above exist.
  IF EXISTS (
       SELECT 1
         FROM (SELECT DISTINCT u.id
                 FROM unnest(p_debit_id || p_credit_id, v_after || v_after) AS u(id, after)
                WHERE u.after IS NOT NULL AND u.id <> ALL (x_id)) d
        WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = d.id)) THEN
    RAISE EXCEPTION 'post_transfers: a transfer names an account that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN QUERY
    WITH written AS (
      INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
        credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
        tracking_unit_id, created_at, authorised_by, authorisation_sha256)
      SELECT u.merchant_id, u.transaction_id, u.kind, u.debit_id, u.credit_id, u.amount,
             u.currency, u.card_id, u.token_id, u.after, u.unit_id, u.at, u.authorised_by,
             u.authorisation_sha256
        FROM unnest(p_merchant_id, p_transaction_id, p_kind, p_debit_id, p_credit_id,
               p_amount_minor, p_currency, p_card_id, p_token_id, v_after, p_unit_id, p_now,
               p_authorised_by, p_authorisation_sha256)
             WITH ORDINALITY AS u(merchant_id, transaction_id, kind, debit_id, credit_id, amount,
               currency, card_id, token_id, after, unit_id, at, authorised_by,
               authorisation_sha256, ord)
       WHERE u.after IS NOT NULL
       ORDER BY u.ord
      RETURNING id, merchant_id, transaction_id)
    SELECT u.ord::integer, w.id, u.after
      FROM written w
      JOIN unnest(p_merchant_id, p_transaction_id, v_after) WITH ORDINALITY
             AS u(merchant_id, transaction_id, after, ord)
        ON u.merchant_id = w.merchant_id AND u.transaction_id = w.transaction_id
     ORDER BY u.ord;
END $$;
