-- post_transfers: postings on the double-entry ledger, as a batch (docs/decisions.md, "Cards and
-- balances", "Balance, reservations, top-ups, refunds"; docs/architecture.md, "Where each rule
-- lives"). The one place a transfer is booked: a checkout booking posts its orders' charges here
-- in one call (book_orders), and post_transfer, after the terminal and card checks of a single
-- top-up, withdrawal or refund, posts a batch of one.
--
-- The postings of an account apply in the order given (ord: a posting's position in the input,
-- from 1). Each has a floor and perhaps a ceiling for the account's balance before it: the
-- balance after the postings before it must be at least the floor and, when a ceiling is given,
-- at most the ceiling. The conditional UPDATE of the account is the race-free check (an open
-- account whose balance meets every posting's guard, each posting's guard moved by what the
-- postings before it change), and the INSERT of the immutable transfers reads each one's balance
-- after from it. An account whose guard does not hold books none of its postings: no row back
-- for them. Accounts are locked in the order of their ids, so that two batches never wait for each
-- other in a circle. A repeated transaction id violates the unique key and undoes the statement.
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
  v_after bigint;
BEGIN
  IF coalesce(cardinality(p_account_id), 0) = 0 THEN
    RETURN;
  END IF;
  -- One posting (every single top-up, withdrawal and refund): the same guard and insert, as two
  -- plain statements; the batch's grouping costs more than the posting itself.
  IF cardinality(p_account_id) = 1 THEN
    UPDATE ledger_accounts a SET balance_minor = a.balance_minor + p_delta_minor[1]
     WHERE a.id = p_account_id[1] AND a.merchant_id = p_merchant_id[1] AND a.status = 'open'
       AND a.balance_minor >= p_min_balance_minor[1]
       AND (p_max_balance_minor[1] IS NULL OR a.balance_minor <= p_max_balance_minor[1])
    RETURNING a.balance_minor INTO v_after;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    RETURN QUERY
      INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
        credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
        tracking_unit_id, created_at, authorised_by, authorisation_sha256)
      VALUES (p_merchant_id[1], p_transaction_id[1], p_kind[1], p_debit_id[1], p_credit_id[1],
        p_amount_minor[1], p_currency[1], p_card_id[1], p_token_id[1], v_after, p_unit_id[1],
        p_now[1], p_authorised_by[1], p_authorisation_sha256[1])
      RETURNING 1, id, balance_after_minor;
    RETURN;
  END IF;
  IF cardinality(p_account_id) > 1 THEN
    PERFORM 1 FROM ledger_accounts a WHERE a.id = ANY (p_account_id) ORDER BY a.id
       FOR NO KEY UPDATE;
  END IF;
  RETURN QUERY
    WITH posting AS (
      SELECT u.*, sum(u.delta) OVER (PARTITION BY u.account_id ORDER BY u.ord) AS moved
        FROM unnest(p_merchant_id, p_account_id, p_delta_minor, p_min_balance_minor,
               p_max_balance_minor, p_now, p_currency, p_transaction_id, p_kind, p_debit_id,
               p_credit_id, p_amount_minor, p_card_id, p_token_id, p_unit_id, p_authorised_by,
               p_authorisation_sha256)
             WITH ORDINALITY AS u(merchant_id, account_id, delta, floor, ceiling, at, currency,
               transaction_id, kind, debit_id, credit_id, amount, card_id, token_id, unit_id,
               authorised_by, authorisation_sha256, ord)),
    guard AS (
      -- Per account: what the postings move, and the balance its guards need before them.
      SELECT p.account_id, min(p.merchant_id) AS merchant_id, sum(p.delta) AS moved,
             max(p.floor - (p.moved - p.delta)) AS at_least,
             min(p.ceiling - (p.moved - p.delta)) AS at_most,
             count(DISTINCT p.merchant_id) AS merchants
        FROM posting p GROUP BY p.account_id),
    booked AS (
      UPDATE ledger_accounts a SET balance_minor = a.balance_minor + g.moved
        FROM guard g
       WHERE a.id = g.account_id AND a.merchant_id = g.merchant_id AND g.merchants = 1
         AND a.status = 'open' AND a.balance_minor >= g.at_least
         AND (g.at_most IS NULL OR a.balance_minor <= g.at_most)
      RETURNING a.id, a.balance_minor - g.moved AS before),
    written AS (
      INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
        credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
        tracking_unit_id, created_at, authorised_by, authorisation_sha256)
      SELECT p.merchant_id, p.transaction_id, p.kind, p.debit_id, p.credit_id, p.amount,
             p.currency, p.card_id, p.token_id, b.before + p.moved, p.unit_id, p.at,
             p.authorised_by, p.authorisation_sha256
        FROM posting p JOIN booked b ON b.id = p.account_id
       ORDER BY p.ord
      RETURNING id, merchant_id, transaction_id, balance_after_minor)
    SELECT p.ord::integer, w.id, w.balance_after_minor
      FROM written w JOIN posting p
        ON p.merchant_id = w.merchant_id AND p.transaction_id = w.transaction_id
     ORDER BY p.ord;
END $$;
