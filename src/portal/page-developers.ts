import type { Static } from 'typebox';
import type { CheckoutClientSchema } from '../wire/documents/checkout-client.schemas.js';
import { WEBHOOK_EVENTS } from '../webhooks/webhook.store.js';
import type { PortalWebhookDeliverySchema, PortalWebhookSchema } from './developers.routes.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime, money } from './layout.js';
import type { StringKey, Translate } from './strings.js';
import { translator } from './strings.js';

type Client = Static<typeof CheckoutClientSchema>;
type Webhook = Static<typeof PortalWebhookSchema>;
type Delivery = Static<typeof PortalWebhookDeliverySchema>;

export interface DeliveryListing {
  /** A page of the deliveries (docs/decisions.md, "Paging"). */
  data: Delivery[];
  nextCursor: string | null;
  webhookId: string;
  /** The cursor of the page shown; empty on the newest. */
  cursor: string;
}

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

const STATUS: Record<Delivery['status'], { key: StringKey; badge: string }> = {
  pending: { key: 'pending', badge: 'scheduled' },
  delivered: { key: 'delivered', badge: 'yes' },
  dead: { key: 'dead', badge: 'failed' },
};

/**
 * What an answer holds only this once (a new client's credentials, a new webhook's secret), shown in
 * read-only fields to copy, filled in by portal.js's "reveal" from the answer's fields.
 */
function onceBox(
  t: Translate,
  id: string,
  [title, once]: [StringKey, StringKey],
  fields: [StringKey, string, string][],
): Html {
  return html`<section class="card credentials" id="${id}" tabindex="-1" aria-labelledby="${id}-title" hidden>
    <h3 id="${id}-title">${t(title)}</h3>
    <p class="form-ok">${t(once)}</p>
    ${fields.map(
      ([label, field, inputId]) =>
        html`<label>${t(label)} <input readonly data-field="${field}" id="${inputId}" /></label>`,
    )}
    <p><a href="/portal/developers">${t('credentialsDone')}</a></p>
  </section>`;
}

/** One button that asks first and then sends a change without a body (revoke, delete). */
function confirmForm(api: string, confirm: string, label: string, what: string): Html {
  return html`<form data-api="${api}" data-next="reload" data-no-body data-confirm="${confirm}">
    <button type="submit" class="secondary" aria-label="${label} ${what}">${label}</button>
    <p class="form-error" role="alert" hidden></p>
  </form>`;
}

function clientsSection(clients: Client[], user: PageUser, t: Translate): Html {
  const owner = user.role === 'owner';
  const create = owner
    ? html`<form
          class="inline card"
          data-api="POST /portal/api/v1/checkoutClients"
          data-next="reveal"
          data-reveal="client-credentials"
          data-refresh="clients-list"
        >
          <label>${t('name')} <input name="name" required maxlength="200" autocomplete="off" /></label>
          <button type="submit">${t('createClient')}</button>
          <p class="form-error" role="alert" hidden></p>
        </form>
        ${onceBox(
          t,
          'client-credentials',
          ['credentialsTitle', 'credentialsOnce'],
          [
            ['accessToken', 'accessToken', 'cred-token'],
            ['securitySecret', 'securitySecret', 'cred-secret'],
          ],
        )}`
    : html`<p class="muted">${t('ownersOnlyDevelopers')}</p>`;
  const table =
    clients.length === 0
      ? html`<p class="muted empty">${t('emptyClients')}</p>`
      : html`<div class="table-wrap">
          <table id="checkout-clients" class="stack-on-phone">
            <thead>
              <tr>
                <th>${t('name')}</th>
                <th>Id</th>
                <th>${t('created')}</th>
                <th>${t('state')}</th>
                ${owner ? html`<th><span class="skip">${t('revoke')}</span></th>` : ''}
              </tr>
            </thead>
            <tbody>
              ${clients.map(
                (c) =>
                  html`<tr data-client="${c.id}">
                    <td data-label="${t('name')}"><strong>${c.name}</strong></td>
                    <td class="phone-wide" data-label="Id">${c.id}</td>
                    <td data-label="${t('created')}">${when(user, c.createdAt)}</td>
                    <td class="phone-first" data-label="${t('state')}">
                      ${
                        c.revokedAt === null
                          ? badge('yes', t('active'))
                          : html`${badge('no', t('revoked'))}
                              <small class="muted">${when(user, c.revokedAt)}</small>`
                      }
                    </td>
                    ${
                      owner
                        ? html`<td>
                            ${
                              c.revokedAt === null
                                ? confirmForm(
                                    `POST /portal/api/v1/checkoutClients/${c.id}/revoke`,
                                    t('revokeConfirm'),
                                    t('revoke'),
                                    c.name,
                                  )
                                : ''
                            }
                          </td>`
                        : ''
                    }
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return html`<section aria-labelledby="clients-title">
    <h2 id="clients-title">${t('checkoutClients')}</h2>
    <p class="muted">${t('clientsHelp')}</p>
    ${create}
    <div id="clients-list">${table}</div>
  </section>`;
}

function webhooksSection(hooks: Webhook[], user: PageUser, t: Translate): Html {
  const owner = user.role === 'owner';
  const register = owner
    ? html`<form
          class="inline card"
          data-api="POST /portal/api/v1/webhooks"
          data-next="reveal"
          data-reveal="webhook-secret"
          data-refresh="webhooks-list"
        >
          <div>
            <label for="webhook-url">${t('webhookUrl')}</label>
            <input
              id="webhook-url"
              name="url"
              type="url"
              required
              maxlength="2000"
              autocomplete="off"
              aria-describedby="webhook-url-help"
            />
            <p class="help" id="webhook-url-help">${t('webhookUrlHelp')}</p>
          </div>
          <label
            >${t('event')}
            <select name="event">
              ${WEBHOOK_EVENTS.map((e) => html`<option value="${e}">${e}</option>`)}
            </select></label
          >
          <button type="submit">${t('registerWebhook')}</button>
          <p class="form-error" role="alert" hidden></p>
        </form>
        ${onceBox(
          t,
          'webhook-secret',
          ['webhookSecretTitle', 'webhookSecretOnce'],
          [
            ['signingSecret', 'secret', 'whsec-value'],
            ['webhookId', 'id', 'whsec-id'],
          ],
        )}`
    : '';
  return html`<section aria-labelledby="webhooks-title">
    <h2 id="webhooks-title">${t('webhooks')}</h2>
    <p class="muted">${t('webhooksHelp')}</p>
    ${register}
    <div id="webhooks-list">
      ${
        hooks.length === 0
          ? html`<p class="muted empty">${t('emptyWebhooks')}</p>`
          : html`<div class="table-wrap">
              <table id="webhooks" class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${t('webhook')}</th>
                    <th>${t('event')}</th>
                    <th>${t('created')}</th>
                    ${owner ? html`<th><span class="skip">${t('deleteWebhook')}</span></th>` : ''}
                  </tr>
                </thead>
                <tbody>
                  ${hooks.map(
                    (w) =>
                      html`<tr data-webhook="${w.id}">
                        <td class="url phone-wide" data-label="${t('webhook')}">
                          ${w.url}
                          <a
                            class="sub"
                            href="/portal/developers?webhookId=${encodeURIComponent(w.id)}#deliveries-title"
                            >${w.id}</a
                          >
                        </td>
                        <td class="phone-wide" data-label="${t('event')}">${w.event}</td>
                        <td data-label="${t('created')}">${when(user, w.createdAt)}</td>
                        ${
                          owner
                            ? html`<td>
                                ${confirmForm(
                                  `DELETE /portal/api/v1/webhooks/${encodeURIComponent(w.id)}`,
                                  t('deleteWebhookConfirm'),
                                  t('deleteWebhook'),
                                  w.url,
                                )}
                              </td>`
                            : ''
                        }
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </div>
  </section>`;
}

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
  const retriable =
    user.role === 'owner' && (d.status === 'dead' || (d.status === 'pending' && d.attempts.length > 0));
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
      retriable
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

function deliveriesSection(listing: DeliveryListing, hooks: Webhook[], user: PageUser, t: Translate): Html {
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

/** The developers page: checkout clients (created and revoked here), webhooks and their deliveries. */
export function developersBody(
  clients: Client[],
  hooks: Webhook[],
  listing: DeliveryListing,
  user: PageUser,
): Html {
  const t = translator(user.lang);
  return html`${clientsSection(clients, user, t)} ${webhooksSection(hooks, user, t)}
  ${deliveriesSection(listing, hooks, user, t)}`;
}
