// The dashboard's charts (Chart.js, served from its npm package): money on a money axis (in the
// merchant's currency, formatted in the user's language), counts and points on their own axis.
// The numbers show on hover; the tables of the page hold them too.
(function () {
  'use strict';
  var data = document.getElementById('dashboard-data');
  if (!data || !window.Chart) return;
  var d = JSON.parse(data.textContent);
  var moneyFormat = new Intl.NumberFormat(d.locale, { style: 'currency', currency: d.currency });
  var countFormat = new Intl.NumberFormat(d.locale, { maximumFractionDigits: 0 });
  var major = function (minor) {
    return minor / d.scale;
  };
  var moneyAxis = function (position, grid) {
    return {
      beginAtZero: true,
      position: position,
      grid: { drawOnChartArea: grid },
      title: { display: true, text: d.currency },
      ticks: {
        callback: function (v) {
          return moneyFormat.format(v);
        },
      },
    };
  };
  var countAxis = function (position, grid, title) {
    return {
      beginAtZero: true,
      position: position,
      grid: { drawOnChartArea: grid },
      title: { display: true, text: title },
      ticks: {
        precision: 0,
        callback: function (v) {
          return countFormat.format(v);
        },
      },
    };
  };
  var tooltip = {
    callbacks: {
      label: function (c) {
        var money = c.dataset.yAxisID === 'money';
        return (
          c.dataset.label + ': ' + (money ? moneyFormat.format(c.parsed.y) : countFormat.format(c.parsed.y))
        );
      },
    },
  };
  var options = function (scales) {
    return {
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      plugins: { tooltip: tooltip, legend: { labels: { boxWidth: 12 } } },
      scales: scales,
    };
  };

  // Every step of the period (day, week or month, as the server chose), steps without anything as
  // zero, labelled by the server in the user's language.
  var days = d.steps.map(function (r) {
    return {
      baskets: r.baskets,
      revenue: r.revenueMinor,
      rewards: r.rewardsMinor,
      earned: r.pointsEarned,
      redeemed: r.pointsRedeemed,
    };
  });
  var labels = d.steps.map(function (r) {
    return r.label;
  });
  var pick = function (k, money) {
    return days.map(function (s) {
      return money ? major(s[k]) : s[k];
    });
  };

  new window.Chart(document.getElementById('chart-hours'), {
    data: {
      labels: d.hours.map(function (h) {
        return String(h.hour).padStart(2, '0');
      }),
      datasets: [
        {
          type: 'bar',
          label: d.labels.baskets,
          data: d.hours.map(function (h) {
            return h.baskets;
          }),
          yAxisID: 'count',
          backgroundColor: '#2b6cb0',
        },
        {
          type: 'line',
          label: d.labels.revenue,
          data: d.hours.map(function (h) {
            return major(h.revenueMinor);
          }),
          yAxisID: 'money',
          borderColor: '#c05621',
          backgroundColor: '#c05621',
        },
      ],
    },
    options: options({ count: countAxis('left', true, d.labels.baskets), money: moneyAxis('right', false) }),
  });

  new window.Chart(document.getElementById('chart-sales'), {
    data: {
      labels: labels,
      datasets: [
        {
          type: 'bar',
          label: d.labels.revenue,
          data: pick('revenue', true),
          yAxisID: 'money',
          backgroundColor: '#c05621',
        },
        {
          type: 'line',
          label: d.labels.baskets,
          data: pick('baskets', false),
          yAxisID: 'count',
          borderColor: '#2b6cb0',
          backgroundColor: '#2b6cb0',
        },
      ],
    },
    options: options({ money: moneyAxis('left', true), count: countAxis('right', false, d.labels.baskets) }),
  });

  new window.Chart(document.getElementById('chart-loyalty'), {
    data: {
      labels: labels,
      datasets: [
        {
          type: 'bar',
          label: d.labels.rewards,
          data: pick('rewards', true),
          yAxisID: 'money',
          backgroundColor: '#2f855a',
        },
        {
          type: 'line',
          label: d.labels.earned,
          data: pick('earned', false),
          yAxisID: 'points',
          borderColor: '#6b46c1',
          backgroundColor: '#6b46c1',
        },
        {
          type: 'line',
          label: d.labels.redeemed,
          data: pick('redeemed', false),
          yAxisID: 'points',
          borderColor: '#b83280',
          backgroundColor: '#b83280',
        },
      ],
    },
    options: options({ money: moneyAxis('left', true), points: countAxis('right', false, d.labels.points) }),
  });

  // The customers' stored balance held at the end of each step (absent with an outlet chosen).
  var balanceCanvas = document.getElementById('chart-balance');
  if (balanceCanvas && d.balance) {
    new window.Chart(balanceCanvas, {
      data: {
        labels: labels,
        datasets: [
          {
            type: 'line',
            label: d.balance.label,
            data: d.balance.steps.map(major),
            yAxisID: 'money',
            borderColor: '#2c7a7b',
            backgroundColor: '#2c7a7b',
          },
        ],
      },
      options: options({ money: moneyAxis('left', true) }),
    });
  }
})();
