import type { PortalLang } from '../portal-users/portal-user.store.js';

/** The user's language: the one chosen in the portal, else the browser's first of de/en, else English. */
export function langOf(stored: PortalLang | null, acceptLanguage: string | undefined): PortalLang {
  if (stored) return stored;
  const first = (acceptLanguage ?? '')
    .split(',')
    .map((part) => part.trim().slice(0, 2).toLowerCase())
    .find((code) => code === 'de' || code === 'en');
  return first === 'de' ? 'de' : 'en';
}
