import type { Static } from 'typebox';
import type { CheckoutClientSchema } from '../wire/documents/checkout-client.schemas.js';
import { WEBHOOK_EVENTS } from '../webhooks/webhook.store.js';
import type { PortalWebhookSchema } from './developers.routes.js';
import { type DeliveryListing, deliveriesSection } from './page-webhook-deliveries.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime } from './layout.js';
import type { StringKey, Translate } from './strings.js';
import { translator } from './strings.js';

type Client = Static<typeof CheckoutClientSchema>;
type Webhook = Static<typeof PortalWebhookSchema>;

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

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
