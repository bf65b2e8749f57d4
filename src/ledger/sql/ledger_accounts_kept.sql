-- ledger_accounts_kept: the trigger function that keeps ledger accounts from being deleted or
-- given another id or merchant (docs/decisions.md, "The ledger's references checked by its one
-- writer"). The ledger's transfers name their accounts and merchant without foreign keys; their
-- writers (post_transfers; a card's merge, postMerge) check that the accounts exist when they
-- book, and this keeps that true afterwards (a closed account is closed by its status, never
-- removed).
--
-- Trigger: ledger_accounts_no_removal, BEFORE DELETE OR UPDATE OF id, merchant_id ON
-- ledger_accounts FOR EACH ROW (migration 0048). Triggers are part of their table and stay in the
-- numbered migrations; this file holds the function they run.
CREATE OR REPLACE FUNCTION ledger_accounts_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id AND NEW.merchant_id = OLD.merchant_id THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'ledger accounts are never removed or moved' USING ERRCODE = '55000';
END $$;
