import type { AuthenticatedUnit, TerminalAuth, UnitCredentials } from '../merchants/terminal.js';
import type { BasketDeps } from './basket-deps.js';
import { GrantTerminalChanged, grantBasket } from './basket-grant.js';
import type { GrantResponse } from './basket-model.js';
import type { LegacyBodyReader } from './basket.types.js';

export interface TillGrant {
  readonly basketId: string;
  readonly redeemedInPos: boolean;
  readonly readLegacyBody: LegacyBodyReader;
}

/**
 * A till's grant, authorised and booked. As the till's balance bookings (src/cards/till-cards.ts),
 * an MD5-signed grant may start from a remembered answer about its terminal, because its one write
 * (`grant_basket`, sql/grant_basket.sql) re-checks that answer; anything else than a grant booked
 * on it is decided again on a fresh lookup. A SecurityToken-V2 grant spends its signature, so it is
 * checked once, on a fresh lookup (`startFromRemembered` false).
 */
export function grantForTill(
  deps: BasketDeps,
  terminals: TerminalAuth,
  credentials: UnitCredentials,
  grant: TillGrant,
  authorise: (unit: AuthenticatedUnit) => Promise<unknown>,
  startFromRemembered: boolean,
): Promise<GrantResponse> {
  const act = async (unit: AuthenticatedUnit, remembered: boolean) => {
    await authorise(unit);
    const { basketId, redeemedInPos, readLegacyBody } = grant;
    return grantBasket(deps, unit, basketId, redeemedInPos, readLegacyBody, remembered ? unit : null);
  };
  return terminals.onRemembered(
    credentials,
    startFromRemembered,
    act,
    (err) => err instanceof GrantTerminalChanged,
  );
}
