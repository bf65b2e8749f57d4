import type { FastifyInstance } from 'fastify';

/**
 * The security headers of every page for people: the merchant portal's, the consumer portal's
 * and the digital receipt's (docs/security.md, "Pages for people"; docs/decisions.md, "Gift-card
 * privacy and hardened pages"). One policy, with the one difference the portal still needs:
 * its pages carry inline style attributes, so it allows inline styles; the consumer's pages
 * carry none.
 *
 * - `Content-Security-Policy`: scripts, styles, fetches, workers and form targets of our own
 *   origin only, no inline script anywhere, no plugins, no `<base>`; `frame-ancestors 'none'`,
 *   so no other site can put a page in a frame (clickjacking).
 * - `X-Frame-Options: DENY`: the same for browsers that predate `frame-ancestors`.
 * - `X-Content-Type-Options: nosniff`: a response is only ever what its Content-Type says.
 * - `Referrer-Policy`: the consumer's pages send no referrer at all (a receipt's URL is its only
 *   secret), the portal's only within the portal's origin.
 */
export interface PagePolicy {
  /** Allow `style` attributes and `<style>` elements (the merchant portal's pages still have some). */
  readonly inlineStyles: boolean;
  readonly referrerPolicy: 'no-referrer' | 'same-origin';
}

export const CONSUMER_PAGES: PagePolicy = { inlineStyles: false, referrerPolicy: 'no-referrer' };
export const PORTAL_PAGES: PagePolicy = { inlineStyles: true, referrerPolicy: 'same-origin' };

export function contentSecurityPolicy(policy: PagePolicy): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${policy.inlineStyles ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function pageSecurityHeaders(policy: PagePolicy): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(policy),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': policy.referrerPolicy,
  };
}

/**
 * A document a page links to but that is not ours (the till's BillPdf): never run as a page of our
 * origin. `sandbox` gives it a unique origin without scripts, forms or plugins of ours, whatever a
 * browser makes of it; with `nosniff` it is never read as anything but its Content-Type.
 */
export const DOCUMENT_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Every response of the scope gets the page headers, errors and redirects included; a route that
 * set its own policy (a document) keeps it, and gets the others it did not set.
 */
export function securePages(scope: FastifyInstance, policy: PagePolicy): void {
  const headers = pageSecurityHeaders(policy);
  scope.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(headers)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    return payload;
  });
}
