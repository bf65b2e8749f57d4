// The campaign page: builds the dry run's basket as a till sends it from the articles picked with
// their quantities (or from a recent basket), into the JSON of the advanced view, which is what
// the dry run sends; and draws the campaign's figures (Chart.js). The server decides everything.
(function () {
  'use strict';

  var json = document.getElementById('dry-basket');
  var rows = document.querySelector('[data-article-rows]');
  var template = document.getElementById('dry-article-row');
  var time = document.getElementById('dry-time');
  var card = document.getElementById('dry-card');
  var till = document.getElementById('dry-till');
  var recentSelect = document.getElementById('dry-recent');
  var recentData = document.getElementById('dry-recent-data');
  var recent = recentData ? JSON.parse(recentData.textContent) : [];
  var seq = 0;
  /** The Timestamp of a recent basket as its till sent it, kept until the time is changed. */
  var sentTimestamp = null;

  function priceOf(plu) {
    var options = document.querySelectorAll('#dry-articles option');
    for (var i = 0; i < options.length; i++) {
      if (options[i].value === plu) return options[i].getAttribute('data-price') || '';
    }
    return '';
  }

  /** A decimal as typed ("3,20" or "3.20"); what is not one is sent as typed for the server to refuse. */
  function decimal(text) {
    var t = text.trim().replace(',', '.');
    return /^\d+(\.\d+)?$/.test(t) ? Number(t) : text;
  }

  function basket() {
    var positions = [];
    Array.prototype.forEach.call(rows.querySelectorAll('[data-article-row]'), function (row) {
      var plu = row.querySelector('[data-part=plu]').value.trim();
      if (plu === '') return;
      var position = {
        PositionId: positions.length + 1,
        ProductId: plu,
        Unit: Number(row.getAttribute('data-unit') || '0'),
        Amount: decimal(row.querySelector('[data-part=amount]').value || '1'),
        CurrentGrossPrice: decimal(row.querySelector('[data-part=price]').value || '0'),
      };
      if (row.getAttribute('data-has-discounts') === 'true') position.HasDiscounts = true;
      positions.push(position);
    });
    var body = {
      Timestamp: sentTimestamp || (time.value.length === 16 ? time.value + ':00' : time.value),
      HasDiscounts: false,
      Positions: positions,
    };
    var code = card.value.trim();
    if (code) body.ContextIdentifiers = [code];
    return body;
  }

  function update() {
    if (json) json.value = JSON.stringify(basket(), null, 2);
  }

  function addRow(values) {
    var row = template.content.firstElementChild.cloneNode(true);
    seq += 1;
    Array.prototype.forEach.call(row.querySelectorAll('[id]'), function (el) {
      var label = row.querySelector('label[for="' + el.id + '"]');
      el.id = el.id.replace(/-0$/, '-' + seq);
      if (label) label.setAttribute('for', el.id);
    });
    if (values) {
      row.querySelector('[data-part=plu]').value = values.plu;
      row.querySelector('[data-part=amount]').value = values.amount;
      row.querySelector('[data-part=price]').value = values.price;
      if (values.unit) row.setAttribute('data-unit', String(values.unit));
      if (values.hasDiscounts) row.setAttribute('data-has-discounts', 'true');
    }
    rows.appendChild(row);
    return row;
  }

  if (json && rows && template) {
    rows.addEventListener('input', function (event) {
      var part = event.target.getAttribute('data-part');
      if (part === 'plu') {
        var price = event.target.closest('tr').querySelector('[data-part=price]');
        var known = priceOf(event.target.value.trim());
        if (known && !price.value) price.value = known;
      }
      update();
    });
    rows.addEventListener('change', update);
    document.addEventListener('click', function (event) {
      if (event.target.closest('[data-add-article]')) {
        addRow().querySelector('[data-part=plu]').focus();
        update();
      } else if (event.target.closest('[data-remove-article]')) {
        event.target.closest('tr').remove();
        update();
        var add = document.querySelector('[data-add-article]');
        if (add) add.focus();
      }
    });
    time.addEventListener('input', function () {
      sentTimestamp = null;
      update();
    });
    card.addEventListener('input', update);
    if (recentSelect) {
      recentSelect.addEventListener('change', function () {
        var chosen = recent[Number(recentSelect.value)];
        if (!recentSelect.value || !chosen) return;
        var body = chosen.body;
        rows.textContent = '';
        (body.Positions || []).forEach(function (p) {
          addRow({
            plu: p.ProductId || '',
            amount: String(p.Amount),
            price: String(p.CurrentGrossPrice !== undefined ? p.CurrentGrossPrice : p.RegularGrossPrice || 0),
            unit: p.Unit,
            hasDiscounts: p.HasDiscounts === true,
          });
        });
        sentTimestamp = body.Timestamp;
        time.value = String(body.Timestamp).slice(0, 16);
        card.value = (body.ContextIdentifiers || [])[0] || '';
        if (till) till.value = chosen.trackingUnitId;
        update();
        // The basket exactly as the till sent it, for what the form does not show.
        json.value = JSON.stringify(body, null, 2);
      });
    }
    update();
  }

  // A tier chosen for the stand-in customer is one of the live schemes': the live campaigns and
  // schemes are included while one is chosen.
  var pickers = document.querySelectorAll('[data-tier-scheme]');
  var live = document.getElementById('dry-live');
  if (pickers.length && live) {
    var wasLive = live.checked;
    var onTier = function () {
      var chosen = Array.prototype.some.call(pickers, function (s) {
        return s.value !== '';
      });
      if (chosen && !live.disabled) wasLive = live.checked;
      live.checked = chosen || wasLive;
      live.disabled = chosen;
    };
    Array.prototype.forEach.call(pickers, function (s) {
      s.addEventListener('change', onTier);
    });
    onTier();
  }

  // The campaign's figures: granted baskets as bars, the cost (or points earned) as a line; numbers
  // and money in the user's language, as in the table below the chart.
  var figures = document.getElementById('rule-figures');
  if (figures && window.Chart) {
    var f = JSON.parse(figures.textContent);
    var countFormat = new Intl.NumberFormat(f.locale, { maximumFractionDigits: 0 });
    var secondFormat =
      f.kind === 'campaign'
        ? new Intl.NumberFormat(f.locale, { style: 'currency', currency: f.currency })
        : countFormat;
    var formatted = function (format) {
      return function (v) {
        return format.format(v);
      };
    };
    new window.Chart(document.getElementById('chart-rule'), {
      data: {
        labels: f.days,
        datasets: [
          { type: 'bar', label: f.labels.baskets, data: f.baskets, yAxisID: 'y', backgroundColor: '#2b6cb0' },
          {
            type: 'line',
            label: f.labels.second,
            data: f.second,
            yAxisID: 'y1',
            borderColor: '#c05621',
            backgroundColor: '#c05621',
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          tooltip: {
            callbacks: {
              label: function (c) {
                var format = c.dataset.yAxisID === 'y1' ? secondFormat : countFormat;
                return c.dataset.label + ': ' + format.format(c.parsed.y);
              },
            },
          },
        },
        scales: {
          y: { beginAtZero: true, ticks: { precision: 0, callback: formatted(countFormat) } },
          y1: {
            beginAtZero: true,
            position: 'right',
            grid: { drawOnChartArea: false },
            ticks:
              f.kind === 'campaign'
                ? { callback: formatted(secondFormat) }
                : { precision: 0, callback: formatted(countFormat) },
          },
        },
      },
    });
  }
})();
