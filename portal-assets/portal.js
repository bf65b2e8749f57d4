// The merchant portal's progressive enhancement: forms talk to the portal's JSON API
// (/portal/api/v1, documented in /openapi.json) with the session's CSRF token; the server
// decides everything, this file only sends and shows.
(function () {
  'use strict';

  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : null;

  function api(method, url, body) {
    var headers = { accept: 'application/json' };
    if (csrf) headers['x-csrf-token'] = csrf;
    var init = { method: method, headers: headers, credentials: 'same-origin' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (res) {
      if (res.status === 204) return { ok: true, status: 204, body: null };
      return res.json().then(
        function (json) {
          return { ok: res.ok, status: res.status, body: json };
        },
        function () {
          return { ok: res.ok, status: res.status, body: null };
        },
      );
    });
  }

  /**
   * The API's message, or the form's own text in the page's language: for the error's code and the
   * field its first problem names (data-error-<code>-<field>, such as data-error-invalid-request-email),
   * else for the code (data-error-<code>).
   */
  function errorText(result, form) {
    var e = result.body && result.body.error;
    if (!e) return 'Error ' + result.status;
    var code = e.code && 'data-error-' + String(e.code).replace(/_/g, '-');
    var problems = e.details && e.details.problems;
    var pointer = problems && problems[0] && problems[0].pointer;
    var named = typeof pointer === 'string' ? pointer.split('/').pop().toLowerCase() : '';
    var own = code && ((named && form.getAttribute(code + '-' + named)) || form.getAttribute(code));
    if (own) return own;
    var field = e.details && e.details.field ? ' (' + e.details.field + ')' : '';
    return e.message + field;
  }

  function show(form, selector, text) {
    var box = form.querySelector(selector);
    if (box) {
      box.textContent = text;
      box.hidden = !text;
    }
  }

  /** A field's value as the API takes it. */
  function fieldValue(el) {
    var type = el.getAttribute('data-type');
    if (type === 'number') return Number(el.value);
    // A decimal typed with a comma (German, and the decimal keypad of a German phone) is sent
    // as the API's decimal with a dot; its digits stay text, never a float.
    if (type === 'decimal') return el.value.replace(',', '.');
    // A quantity (pieces, or kilograms to three decimals) is a JSON number, typed with either.
    if (type === 'quantity') return Number(el.value.replace(',', '.'));
    return el.value;
  }

  /**
   * The body of a form: a JSON textarea (data-body), or its named fields. A field of a list
   * (data-list) adds an item to that list: its data-item with the field's value under its name.
   */
  function formBody(form) {
    var json = form.querySelector('[data-body]');
    if (json) return JSON.parse(json.value);
    var body = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.disabled) return;
      if (el.type === 'checkbox') body[el.name] = el.checked;
      else if (el.value === '') return;
      else if (el.hasAttribute('data-list')) {
        var item = JSON.parse(el.getAttribute('data-item') || '{}');
        item[el.name] = fieldValue(el);
        var list = el.getAttribute('data-list');
        (body[list] = body[list] || []).push(item);
      } else body[el.name] = fieldValue(el);
    });
    return body;
  }

  /** A refused request's answer shown in its form, and told to the page's own scripts. */
  function showRefusal(form, result) {
    show(form, '.form-error', errorText(result, form));
    if (result.body && result.body.error)
      form.dispatchEvent(new window.CustomEvent('portal:error', { detail: { error: result.body.error } }));
  }

  /** Minor units as money in the page's language: the exact decimal's text, never a float. */
  function moneyText(minor, form) {
    var exp = Number(form.getAttribute('data-exponent'));
    var digits = String(minor).padStart(exp + 1, '0');
    var decimal = exp === 0 ? digits : digits.slice(0, -exp) + '.' + digits.slice(-exp);
    return new Intl.NumberFormat(form.getAttribute('data-locale'), {
      style: 'currency',
      currency: form.getAttribute('data-currency'),
    }).format(decimal);
  }

  /**
   * Whether the person goes ahead: the form's confirmation (data-confirm). A form with a quote
   * (data-quote) first asks the service what the request would move, booking nothing, and names
   * that amount in its question (data-confirm-amount, {amount}); a request the service would
   * refuse is refused at once, with its reason, instead of asked about.
   */
  function goAhead(form, body) {
    var quote = form.getAttribute('data-quote');
    var plain = form.getAttribute('data-confirm');
    if (!quote) return Promise.resolve(!plain || window.confirm(plain));
    var ask = {};
    (form.getAttribute('data-quote-fields') || '').split(' ').forEach(function (name) {
      if (name && body && body[name] !== undefined) ask[name] = body[name];
    });
    var parts = quote.split(' ');
    return api(parts[0], parts[1], ask).then(function (result) {
      if (!result.ok) {
        showRefusal(form, result);
        return false;
      }
      var text = form.getAttribute('data-confirm-amount');
      return window.confirm(text.replace('{amount}', moneyText(result.body.amountMinor, form)));
    });
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    var action = form.getAttribute('data-api');
    if (!action) return;
    event.preventDefault();
    var parts = action.split(' ');
    var body;
    try {
      body = parts[0] === 'GET' || form.hasAttribute('data-no-body') ? undefined : formBody(form);
    } catch (err) {
      show(form, '.form-error', String(err.message || err));
      return;
    }
    show(form, '.form-error', '');
    show(form, '.form-ok', '');
    var button = form.querySelector('[type=submit]');
    if (button) button.disabled = true;
    goAhead(form, body)
      .then(function (yes) {
        if (!yes) return null;
        return api(parts[0], parts[1], body);
      })
      .then(function (result) {
        if (button) button.disabled = false;
        if (!result) return;
        if (!result.ok) {
          showRefusal(form, result);
          return;
        }
        var next = form.getAttribute('data-next');
        if (next === 'reload') window.location.reload();
        else if (next === 'stay') show(form, '.form-ok', form.getAttribute('data-ok') || 'OK');
        else if (next === 'dry-run') renderDryRun(result.body);
        else if (next === 'dry-last') renderRecent(result.body);
        else if (next === 'reveal') reveal(form, result.body);
        else if (next === 'otp')
          show(
            form,
            '.form-ok',
            result.body.otp +
              ' (' +
              new Date(result.body.expiresAt).toLocaleString(document.documentElement.lang) +
              ')',
          );
        else if (next) window.location.assign(next.replace('{id}', result.body && result.body.id));
      });
  });

  /**
   * Shows what the answer holds only this once (a new client's credentials) in the form's box, and
   * brings the list it was added to (data-refresh) up to date beside it.
   */
  function reveal(form, body) {
    var box = document.getElementById(form.getAttribute('data-reveal'));
    if (!box) return;
    Array.prototype.forEach.call(box.querySelectorAll('[data-field]'), function (el) {
      el.value = body[el.getAttribute('data-field')];
    });
    form.reset();
    box.hidden = false;
    box.focus();
    refresh(form.getAttribute('data-refresh'));
  }

  /** Replaces the element `id` with the same element of this page as the server renders it now. */
  function refresh(id) {
    var old = id && document.getElementById(id);
    if (!old) return;
    fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (res) {
        return res.ok ? res.text() : null;
      })
      .then(function (text) {
        var fresh = text && new window.DOMParser().parseFromString(text, 'text/html').getElementById(id);
        if (fresh) old.replaceWith(document.importNode(fresh, true));
      });
  }

  var lang = document.querySelector('select[data-lang]');
  if (lang) {
    lang.addEventListener('change', function () {
      api('PUT', '/portal/api/v1/me/lang', { lang: lang.value }).then(function () {
        window.location.reload();
      });
    });
  }

  // Campaign editor: the definition as JSON, which the form (rule-form.js) keeps current.
  var definition = document.getElementById('rule-definition');

  // The dry run sends the definition being edited as a draft beside the basket.
  var dry = document.getElementById('dry-run');
  if (dry && definition) {
    dry.addEventListener(
      'submit',
      function () {
        var kind = dry.getAttribute('data-kind');
        var body = {
          basket: JSON.parse(document.getElementById('dry-basket').value),
          includeLiveCampaigns: document.getElementById('dry-live').checked,
        };
        var draft = JSON.parse(definition.value);
        if (kind === 'scheme') body.schemes = [draft];
        else body.campaigns = [draft];
        // As the till chosen (its outlet and sortiment); the campaign being edited is left out of the
        // live ones, as the draft stands in for it.
        var till = document.getElementById('dry-till');
        if (till && till.value) body.trackingUnitId = till.value;
        // A tier chosen for the stand-in customer, per scheme (page-dry-run-basket.ts).
        var tiers = {};
        Array.prototype.forEach.call(document.querySelectorAll('[data-tier-scheme]'), function (s) {
          if (s.value) tiers[s.getAttribute('data-tier-scheme')] = s.value;
        });
        if (Object.keys(tiers).length) body.consumer = { tiers: tiers };
        var replaces = dry.getAttribute('data-replaces');
        if (replaces && body.includeLiveCampaigns) {
          body.replaces =
            kind === 'scheme' ? { schemes: [Number(replaces)] } : { campaigns: [Number(replaces)] };
        }
        document.getElementById('dry-body').value = JSON.stringify(body);
      },
      true,
    );
  }

  // The same draft tried on the last baskets the tills sent, with the live campaigns (the campaign
  // being edited left out of them, as the draft stands in for it).
  var recentForm = document.getElementById('dry-last');
  if (recentForm && dry && definition) {
    recentForm.addEventListener(
      'submit',
      function () {
        var scheme = dry.getAttribute('data-kind') === 'scheme';
        var draft = [JSON.parse(definition.value)];
        var body = scheme ? { schemes: draft } : { campaigns: draft };
        body.limit = Number(recentForm.getAttribute('data-limit'));
        var replaces = dry.getAttribute('data-replaces');
        if (replaces)
          body.replaces = scheme ? { schemes: [Number(replaces)] } : { campaigns: [Number(replaces)] };
        document.getElementById('dry-last-body').value = JSON.stringify(body);
      },
      true,
    );
  }

  function cell(row, text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }

  /**
   * The dry run's answers in the owner's words (docs/decisions.md, "Why a campaign did not apply"):
   * src/portal/strings-dry-run.ts has the sentences, one per reason code; `campaigns` the answer's
   * entries that name the campaigns (campaignId, name).
   */
  function dryWording(campaigns) {
    var names = {};
    campaigns.forEach(function (c) {
      names[String(c.campaignId)] = c.name;
    });
    var w = JSON.parse(document.getElementById('dry-words').textContent);
    var money = new Intl.NumberFormat(w.locale, { style: 'currency', currency: w.currency });
    var count = new Intl.NumberFormat(w.locale, { maximumFractionDigits: 3 });
    function fill(key, values) {
      return w.words[key].replace(/\{(\w+)\}/g, function (all, name) {
        return name in values ? values[name] : all;
      });
    }
    function nameOf(id) {
      var name = names[String(id)] || String(id);
      return /^draft-/.test(String(id)) ? fill('draft', { name: name }) : name;
    }
    function quoted(ids) {
      return ids
        .map(function (id) {
          return fill('quote', { name: nameOf(id) });
        })
        .join(', ');
    }
    function why(e) {
      var blocked = e.blockedBy && e.blockedBy.length ? e.blockedBy : null;
      var code = e.reasonCode;
      // A stacked campaign comes after every other product campaign whatever its priority: what
      // keeps it off is a reward it does not stack with.
      var stacks = e.stacking === 'stackable' || /^group /.test(e.stacking || '');
      if (blocked && code === 'no_units_left' && stacks) code = 'no_units_left_stack_by';
      else if (blocked && (code === 'no_units_left' || code === 'too_few_units')) code += '_by';
      if (!(code in w.words)) return e.reason;
      return fill(code, {
        by: blocked ? quoted(blocked) : '',
        tiers: (e.tiers || []).join(', '),
        units: e.unitsNeeded === undefined ? '' : count.format(e.unitsNeeded),
        reward: e.budget ? money.format(e.budget.reward) : '',
        left: e.budget ? money.format(e.budget.left) : '',
      });
    }
    function stacking(text) {
      if (text === 'exclusive') return w.words.stack_exclusive;
      if (text === 'stackable') return w.words.stack_stackable;
      return fill('stack_group', { group: text.replace(/^group /, '') });
    }
    return { w: w, money: money, count: count, fill: fill, nameOf: nameOf, why: why, stacking: stacking };
  }

  function renderDryRun(result) {
    var out = document.getElementById('dry-result');
    if (!out) return;
    out.hidden = false;
    var say = dryWording(result.explanations);
    var w = say.w;
    var money = say.money;
    var count = say.count;
    var fill = say.fill;
    var nameOf = say.nameOf;
    var why = say.why;
    var stacking = say.stacking;
    var rewards = out.querySelector('tbody[data-rewards]');
    var whyRows = out.querySelector('tbody[data-why]');
    rewards.textContent = '';
    whyRows.textContent = '';
    // A reward on a position that already has one stacked on it (docs/decisions.md, "Budgets at the
    // upload and in the dry run"); rewards on the bill (RewardType 2, position 0) add up, none stacks.
    var seen = {};
    result.Rewards.forEach(function (r) {
      var tr = document.createElement('tr');
      var position = String(r.RewardTriggeringPositionId);
      var stacked = r.RewardType === 1 && seen[position];
      cell(tr, r.RewardType === 1 ? position : w.words.bill);
      cell(tr, stacked ? r.Name + ' · ' + out.getAttribute('data-stacked') : r.Name);
      cell(tr, money.format(r.GrossRewardValue), 'num');
      if (stacked) tr.setAttribute('data-stacked-reward', '');
      seen[position] = true;
      rewards.appendChild(tr);
    });
    result.explanations.forEach(function (e) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-reason', e.reasonCode);
      var name = nameOf(e.campaignId);
      cell(
        tr,
        e.stacking ? name + ' · ' + out.getAttribute('data-stacks') + ': ' + stacking(e.stacking) : name,
      );
      cell(
        tr,
        e.applied
          ? '✔ ' + e.applications + '×'
          : e.heldBackByBudget
            ? out.getAttribute('data-held-back')
            : '—',
        'phone-first',
      );
      cell(tr, why(e), 'phone-wide');
      whyRows.appendChild(tr);
    });
    var loyalty = out.querySelector('[data-loyalty]');
    loyalty.textContent = '';
    result.LoyaltyInfo.forEach(function (l) {
      l.Details.forEach(function (d) {
        var li = document.createElement('li');
        li.textContent =
          fill('loyalty', {
            name: l.Name,
            before: count.format(d.PreviousPoints),
            after: count.format(d.NewPoints),
          }) +
          (d.GrossRewardValue > 0
            ? fill('loyalty_redeemed', { value: money.format(d.GrossRewardValue) })
            : '');
        loyalty.appendChild(li);
      });
    });
    loyalty.hidden = result.LoyaltyInfo.length === 0;
    out.focus();
  }

  /** In how many of the last baskets the draft applies, and why not in the others, most frequent first. */
  function renderRecent(result) {
    var out = document.getElementById('dry-last-result');
    if (!out) return;
    out.hidden = false;
    var say = dryWording(result.campaigns);
    var own = result.campaigns.filter(function (c) {
      return c.campaignId === 'draft-1';
    })[0];
    var ownScheme = result.schemes.filter(function (x) {
      return x.schemeId === 'draft-1';
    })[0];
    var summary = out.querySelector('[data-summary]');
    var reasons = out.querySelector('[data-reasons]');
    var others = out.querySelector('tbody[data-others]');
    reasons.textContent = '';
    others.textContent = '';
    if (result.baskets + result.orders === 0 || !(own || ownScheme))
      summary.textContent = say.w.words.recent_none;
    else if (ownScheme) {
      // A scheme: the points it would earn; what is redeemed depends on each balance as it grew.
      summary.textContent = say.fill('recent_scheme', {
        customers: say.count.format(result.customers),
        of: say.count.format(result.baskets),
        n: say.count.format(ownScheme.baskets),
        points: say.count.format(ownScheme.points),
      });
    } else {
      // With online orders, the orders apart: the same campaign may be meant for one channel only.
      summary.textContent =
        say.fill(result.orders > 0 ? 'recent_applied_orders' : 'recent_applied', {
          n: say.count.format(own.applied - own.appliedOrders),
          of: say.count.format(result.baskets),
          m: say.count.format(own.appliedOrders),
          orders: say.count.format(result.orders),
        }) +
        (own.applied > 0 ? say.fill('recent_discount', { amount: say.money.format(own.discount) }) : '') +
        '.';
      own.reasons.forEach(function (r) {
        var li = document.createElement('li');
        li.setAttribute('data-reason', r.reasonCode);
        li.textContent =
          say.fill('recent_times', { n: say.count.format(r.baskets) }) +
          ' ' +
          say.why(Object.assign({ stacking: own.stacking }, r)) +
          ' ';
        // The newest such basket or order, to open its page and see its articles and rewards.
        var a = document.createElement('a');
        var order = r.example.orderId !== undefined;
        a.href = order
          ? '/portal/orders/' + encodeURIComponent(r.example.orderId)
          : '/portal/baskets/' +
            encodeURIComponent(r.example.trackingUnitId) +
            '/' +
            encodeURIComponent(r.example.basketId);
        a.textContent = say.fill(order ? 'recent_example_order' : 'recent_example', {
          basket: r.example.basketId,
        });
        li.appendChild(a);
        reasons.appendChild(li);
      });
    }
    var skipped = out.querySelector('[data-skipped]');
    skipped.textContent = say.fill('recent_skipped', { n: say.count.format(result.skipped) });
    skipped.hidden = result.skipped === 0;
    result.campaigns
      .filter(function (c) {
        return !ownScheme && c !== own && c.applied > 0;
      })
      .sort(function (x, y) {
        return y.applied - x.applied;
      })
      .forEach(function (c) {
        var tr = document.createElement('tr');
        cell(tr, c.name);
        cell(tr, say.count.format(c.applied), 'num');
        cell(tr, say.money.format(c.discount), 'num');
        others.appendChild(tr);
      });
    out.querySelector('[data-others-wrap]').hidden = others.children.length === 0;
    out.focus();
  }
})();
