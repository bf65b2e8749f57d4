import type { Static } from 'typebox';
import type { PortalWebhookDeliverySchema, PortalWebhookSchema } from './developers.routes.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime, money } from './layout.js';
import type { StringKey, Translate } from './strings.js';

/**
 * The developers page's webhook deliveries (docs/decisions.md, "Merchant portal: checkout clients
 * and webhooks"): each with its attempts, retried one by one or, when its endpoint is back, every
 * failed one of a webhook at once.
 */

type Delivery = Static<typeof PortalWebhookDeliverySchema>;
type Webhook = Static<typeof PortalWebhookSchema>;

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

export interface DeliveryListing {
  /** A page of the deliveries (docs/decisions.md, "Paging"). */
  data: Delivery[];
  nextCursor: string | null;
  webhookId: string;
  /** The cursor of the page shown; empty on the newest. */
  cursor: string;
}

const STATUS: Record<Delivery['status'], { key: StringKey; badge: string }> = {
  pending: { key: 'pending', badge: 'scheduled' },
  delivered: { key: 'delivered', badge: 'yes' },
  dead: { key: 'dead', badge: 'failed' },
};

/** The event's data in one line: what happened to which transaction, and the amount when it has one. */
function eventSummary(d: Delivery, user: PageUser): string {
  const data = d.event.data;
  const text = (k: string) => (typeof data[k] === 'string' ? String(data[k]) : null);
  const parts: string[] = [];
  const kind = text('kind');
  const status = text('status');
  const previous = text('previousStatus');
  if (kind) parts.push(kind);
  if (status) parts.push(previous ? `${previous} → ${status}` : status);
  const amount = data.amount;
  const currency = text('currency');
  if (typeof amount === 'number' && Number.isInteger(amount) && currency && /^[A-Z]{3}$/.test(currency)) {
    parts.push(money(amount, currency, user.lang));
  }
  return parts.join(' · ');
}

function deliveryCard(d: Delivery, hooks: Webhook[], user: PageUser, t: Translate): Html {
  const status = STATUS[d.status];
  const target = hooks.find((w) => w.id === d.webhookId)?.url ?? d.webhookId;
  const transactionId = typeof d.event.data.transactionId === 'string' ? d.event.data.transactionId : null;
  return html`<article class="card delivery" data-delivery="${d.id}" aria-labelledby="delivery-${d.id}">
    <div class="delivery-head">
      <h3 id="delivery-${d.id}">${d.messageId} · ${d.event.type}</h3>
      ${badge(status.badge, t(status.key))}
    </div>
    <dl class="facts">
      <dt>${t('webhook')}</dt>
      <dd class="url">${target}</dd>
      <dt>${t('transaction')}</dt>
      <dd>${transactionId ?? '—'} <span class="muted">${eventSummary(d, user)}</span></dd>
      <dt>${t('created')}</dt>
      <dd>${when(user, d.createdAt)}</dd>
      ${
        d.nextAttemptAt === null
          ? ''
          : html`<dt>${t('nextAttempt')}</dt>
              <dd>${when(user, d.nextAttemptAt)}</dd>`
      }
    </dl>
    ${
      d.attempts.length === 0
        ? html`<p class="muted">${t('noAttempts')}</p>`
        : html`<div class="table-wrap">
            <table class="attempts stack-on-phone">
              <caption class="skip">
                ${t('attempts')} ${d.messageId}
              </caption>
              <thead>
                <tr>
                  <th class="num">${t('attempt')}</th>
                  <th>${t('started')}</th>
                  <th>${t('outcome')}</th>
                  <th>${t('answer')}</th>
                  <th>${t('error')}</th>
                </tr>
              </thead>
              <tbody>
                ${d.attempts.map((a) => {
                  // The target's HTTP status; the error only where it says more than that status.
                  const answered =
                    a.detail && typeof a.detail.status === 'number' ? `HTTP ${a.detail.status}` : '';
                  return html`<tr>
                    <td class="num" data-label="${t('attempt')}">${a.attempt}</td>
                    <td data-label="${t('started')}">${when(user, a.startedAt)}</td>
                    <td class="phone-first" data-label="${t('outcome')}">
                      ${a.ok ? badge('yes', t('attemptOk')) : badge('failed', t('attemptFailed'))}
                    </td>
                    <td data-label="${t('answer')}">${answered}</td>
                    ${
                      a.error !== null && a.error !== answered
                        ? html`<td class="phone-wide" data-label="${t('error')}">${a.error}</td>`
                        : html`<td class="blank"></td>`
                    }
                  </tr>`;
                })}
              </tbody>
            </table>
          </div>`
    }
    ${
      retriable(d, user)
        ? html`<form
            data-api="POST /portal/api/v1/webhookDeliveries/${d.id}/retry"
            data-next="reload"
            data-no-body
          >
            <button type="submit" aria-label="${t('retry')}: ${d.messageId}">${t('retry')}</button>
            <p class="form-error" role="alert" hidden></p>
          </form>`
        : ''
    }
  </article>`;
}

/** A failed delivery an owner may send again: given up, or waiting for its next try after a failed one. */
function retriable(d: Delivery, user: PageUser): boolean {
  return user.role === 'owner' && (d.status === 'dead' || (d.status === 'pending' && d.attempts.length > 0));
}

/**
 * Every failed delivery of the webhook shown sent again at once (its endpoint is back), offered to
 * an owner when the list shows the webhook's deliveries and some of them failed.
 */
function retryAllForm(listing: DeliveryListing, user: PageUser, t: Translate): Html | string {
  const id = listing.webhookId;
  if (!id || !listing.data.some((d) => retriable(d, user))) return '';
  return html`<form
    class="card"
    id="retry-failed"
    data-api="POST /portal/api/v1/webhooks/${encodeURIComponent(id)}/deliveries/retry"
    data-confirm="${t('retryAllConfirm')}"
    data-next="reload"
    data-no-body
  >
    <p class="muted">${t('retryAllHelp')}</p>
    <button type="submit">${t('retryAll')}</button>
    <p class="form-error" role="alert" hidden></p>
  </form>`;
}

export function deliveriesSection(
  listing: DeliveryListing,
  hooks: Webhook[],
  user: PageUser,
  t: Translate,
): Html {
  const query = (cursor: string | null) => {
    const q = new URLSearchParams();
    if (listing.webhookId) q.set('webhookId', listing.webhookId);
    if (cursor !== null) q.set('cursor', cursor);
    const text = q.toString();
    return `/portal/developers${text ? `?${text}` : ''}#deliveries-title`;
  };
  return html`<section aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">${t('deliveries')}</h2>
    <p class="muted">${t('deliveriesHelp')}</p>
    <form class="inline card" method="get" action="/portal/developers">
      <label
        >${t('webhook')}
        <select name="webhookId">
          <option value="">${t('allWebhooks')}</option>
          ${hooks.map(
            (w) =>
              html`<option value="${w.id}" ${w.id === listing.webhookId ? html`selected` : ''}>
                ${w.url}
              </option>`,
          )}
        </select></label
      >
      <button type="submit">${t('show')}</button>
    </form>
    ${retryAllForm(listing, user, t)}
    ${
      listing.data.length === 0
        ? html`<p class="muted empty">${t('emptyDeliveries')}</p>`
        : listing.data.map((d) => deliveryCard(d, hooks, user, t))
    }
    <nav class="actions" aria-label="${t('deliveries')}">
      ${listing.cursor ? html`<a href="${query(null)}">← ${t('newest')}</a>` : ''}
      ${listing.nextCursor === null ? '' : html`<a href="${query(listing.nextCursor)}">${t('older')} →</a>`}
    </nav>
  </section>`;
}
