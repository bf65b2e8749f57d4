-- post_single_transfers: single top-ups and withdrawals of independent requests, written together
-- in one statement and one transaction (group commit, src/ledger/transfer-write.store.ts;
-- docs/decisions.md, "Card withdrawals and top-ups written with group commit").
--
-- Each row is one request's posting, decided alone exactly as post_transfer decides it (the
-- terminal and card checks, what a profile's live reservations hold, the account's guard): the
-- answer per row (row_no) is post_transfer's, with no transfer id when the guard did not hold. The
-- rows are taken in the order of their accounts' ids, and the rows of one account in the order
-- given, so that two batches lock the accounts they share in the same order and never wait for each
-- other in a circle, and a card's requests are decided one after the other on its balance. A
-- repeated transaction id violates the unique key and undoes the batch: its rows are then written
-- again one by one (src/shared/group-commit.ts).
CREATE OR REPLACE FUNCTION post_single_transfers(p_rows json)
RETURNS TABLE (row_no integer, transfer_id bigint, balance_after_minor bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r record;
  v_id bigint;
  v_after bigint;
BEGIN
  FOR r IN
    SELECT x.* FROM json_to_recordset(p_rows) AS x(row_no integer, merchant_id bigint,
      account_id bigint, delta_minor bigint, min_balance_minor bigint, max_balance_minor bigint,
      check_card boolean, card_id bigint, liability_id bigint, now timestamptz, currency text,
      transaction_id text, kind text, debit_id bigint, credit_id bigint, amount_minor bigint,
      token_id text, unit_id text, authorised_by text, authorisation_sha256 text,
      check_unit boolean, dev_key_id bigint, checksum_secret text, require_v2 boolean,
      require_transaction_id boolean)
     ORDER BY x.account_id, x.row_no
  LOOP
    v_id := NULL;
    v_after := NULL;
    SELECT t.transfer_id, t.balance_after_minor INTO v_id, v_after
      FROM post_transfer(r.merchant_id, r.account_id, r.delta_minor, r.min_balance_minor,
        r.max_balance_minor, r.check_card, r.card_id, r.liability_id, r.now, r.currency,
        r.transaction_id, r.kind, r.debit_id, r.credit_id, r.amount_minor, r.token_id, r.unit_id,
        r.authorised_by, r.authorisation_sha256, r.check_unit, r.dev_key_id, r.checksum_secret,
        r.require_v2, r.require_transaction_id) t;
    row_no := r.row_no;
    transfer_id := v_id;
    balance_after_minor := v_after;
    RETURN NEXT;
  END LOOP;
END $$;
