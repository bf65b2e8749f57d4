import { auth } from '../wire/openapi.js';

/** Security requirements of the checkout routes, naming every header a call needs. */
export const checkoutAuth = { token: auth.checkoutToken, signed: auth.checkoutSigned };

export const pricingErrors =
  'unknown_plu, duplicate_plu, price_missing, vat_rate_missing (details name the position), menu_unknown, total_mismatch (details.expectedTotalGross)';
