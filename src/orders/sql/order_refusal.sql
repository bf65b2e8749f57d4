-- order_refusal: the answer to an order its booking refused (place_order, place_orders): the
-- refusal's HTTP status and body from the server's error catalog (p_refusals, `{name: {status,
-- body}}`, each body `{"error":{...}}` as the catalog renders it), the body naming the request
-- that was refused in `error.requestId`, as every error body of the checkout names its request
-- (docs/decisions.md, "Errors, request ids and rate limits"). The statement stores this text as the
-- key's answer, so that a replay is the answer byte for byte.
CREATE OR REPLACE FUNCTION order_refusal(p_refusals json, p_refusal text, p_request_id text,
  OUT status integer, OUT body text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_text text := p_refusals -> p_refusal ->> 'body';
BEGIN
  status := (p_refusals -> p_refusal ->> 'status')::integer;
  IF status IS NULL OR v_text IS NULL OR right(v_text, 2) <> '}}' THEN
    RAISE EXCEPTION 'order_refusal: no answer for the refusal %', p_refusal;
  END IF;
  -- The id goes last in the error object, as JSON.stringify puts a field added to it.
  body := CASE WHEN p_request_id IS NULL THEN v_text
               ELSE left(v_text, -2) || ',"requestId":' || to_json(p_request_id)::text || '}}' END;
END $$;
