-- ledger_transfers_immutable: the trigger function that keeps ledger transfers immutable
-- (docs/decisions.md, "Cards and balances": the ledger is TigerBeetle-shaped). A correction is a
-- new transfer, never an edit.
--
-- Trigger: ledger_transfers_no_change, BEFORE UPDATE OR DELETE ON ledger_transfers FOR EACH ROW
-- (migration 0003). Triggers are part of their table and stay in the numbered migrations; this
-- file holds the function they run.
CREATE OR REPLACE FUNCTION ledger_transfers_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger transfers are immutable' USING ERRCODE = '55000';
END $$;
