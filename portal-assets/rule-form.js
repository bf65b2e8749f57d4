// The campaign and loyalty-scheme form: builds the definition the portal API validates from the
// form's fields (data-path says where a field goes, data-kind how its text is read), shows only the
// fields of the chosen type, and puts the server's errors next to the field they name. It checks
// no rule of the definition: whatever is typed is sent, and the server answers.
(function () {
  'use strict';

  var form = document.getElementById('rule-form');
  if (!form) return;
  var exponent = Number(form.getAttribute('data-exponent') || '2');
  var mirror = document.getElementById('rule-definition');
  var sent = form.querySelector('[data-body]');
  var seq = 0;
  var fields = {};

  function scopeOf(el) {
    return el.parentElement.closest('[data-row], #rule-form');
  }

  function hiddenWithin(el, scope) {
    for (var n = el; n && n !== scope; n = n.parentElement) if (n.hidden) return true;
    return false;
  }

  function put(obj, path, value) {
    var keys = path.split('.');
    var last = keys.pop();
    keys.forEach(function (k) {
      if (typeof obj[k] !== 'object' || obj[k] === null) obj[k] = {};
      obj = obj[k];
    });
    obj[last] = value;
  }

  /**
   * Money as typed in the merchant's currency ("4.90" or "4,90") becomes integer minor units by its
   * digits, never by float arithmetic; the document carries them as the API's decimal (major units).
   * Text that is not such an amount is sent as typed, for the server to refuse naming the field.
   */
  function money(el, text) {
    var t = text.replace(',', '.');
    var m = /^(\d+)(?:\.(\d*))?$/.exec(t);
    if (!m || (m[2] || '').length > exponent) return /^\d*\.?\d+$/.test(t) ? Number(t) : text;
    var minor = (m[1] + (m[2] || '').padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
    el.setAttribute('data-minor', minor);
    if (exponent === 0) return Number(minor);
    var padded = minor.padStart(exponent + 1, '0');
    return Number(padded.slice(0, -exponent) + '.' + padded.slice(-exponent));
  }

  function read(kind, el, text) {
    if (kind === 'int') return /^[+-]?\d+$/.test(text) ? Number(text) : text;
    if (kind === 'decimal') {
      var d = text.replace(',', '.');
      return /^[+-]?\d+(\.\d+)?$/.test(d) ? Number(d) : text;
    }
    if (kind === 'money') return money(el, text);
    return text;
  }

  function collect(scope, prefix) {
    var out = {};
    Array.prototype.forEach.call(scope.querySelectorAll('[data-path]'), function (el) {
      if (scopeOf(el) !== scope || hiddenWithin(el, scope)) return;
      var path = el.getAttribute('data-path');
      var kind = el.getAttribute('data-kind');
      var full = prefix + path;
      fields[full] = el;
      if (kind === 'flag') {
        if (el.checked) put(out, path, true);
      } else if (kind === 'set') {
        var ticked = Array.prototype.filter
          .call(el.querySelectorAll('input[type=checkbox]'), function (box) {
            return box.checked;
          })
          .map(function (box) {
            return box.getAttribute('data-item') === 'int' ? Number(box.value) : box.value;
          });
        if (ticked.length) put(out, path, ticked);
      } else if (kind === 'keyed') {
        var option = el.querySelector('[data-part=key]').selectedOptions[0];
        var input = el.querySelector('[data-part=value]');
        var text = input.value.trim();
        var member = {};
        if (text !== '') member[option.value] = read(option.getAttribute('data-value-kind'), input, text);
        fields[(path ? full + '.' : prefix) + option.value] = input;
        if (path) put(out, path, member);
        else Object.assign(out, member);
      } else if (kind === 'list') {
        var rows = el.querySelector(':scope > [data-rows]').children;
        if (rows.length === 0 && el.hasAttribute('data-optional')) return;
        put(
          out,
          path,
          Array.prototype.map.call(rows, function (row, i) {
            fields[full + '[' + i + ']'] = row;
            return collect(row, full + '[' + i + '].');
          }),
        );
      } else {
        var value = el.value.trim();
        if (value !== '') put(out, path, read(kind, el, value));
      }
    });
    return out;
  }

  // The form has a field for every member of the definition: the document is what they hold.
  function documentOf() {
    fields = {};
    return collect(form, '');
  }

  /** Shows the fields that apply: data-when="type=product,quantity" names a field of the same scope. */
  function refresh() {
    Array.prototype.forEach.call(form.querySelectorAll('[data-when]'), function (el) {
      var rule = el.getAttribute('data-when').split('=');
      var scope = scopeOf(el);
      var control = Array.prototype.find.call(scope.querySelectorAll('[data-path]'), function (c) {
        return c.getAttribute('data-path') === rule[0] && scopeOf(c) === scope;
      });
      // A field shown by a hidden one is hidden too (a stacking group while stacking is not offered).
      el.hidden = !control || hiddenWithin(control, scope) || rule[1].split(',').indexOf(control.value) < 0;
    });
    if (mirror) mirror.value = JSON.stringify(documentOf(), null, 2);
  }

  /** A new row gets ids of its own; labels and explanations follow them. */
  function renumber(root) {
    var ids = {};
    Array.prototype.forEach.call(root.querySelectorAll('[id]'), function (el) {
      ids[el.id] = 'rr' + ++seq;
      el.id = ids[el.id];
    });
    Array.prototype.forEach.call(root.querySelectorAll('[for], [aria-describedby]'), function (el) {
      if (el.hasAttribute('for'))
        el.setAttribute('for', ids[el.getAttribute('for')] || el.getAttribute('for'));
      var by = el.getAttribute('aria-describedby');
      if (by)
        el.setAttribute(
          'aria-describedby',
          by
            .split(' ')
            .map(function (id) {
              return ids[id] || id;
            })
            .join(' '),
        );
    });
  }

  form.addEventListener('click', function (event) {
    var add = event.target.closest('[data-add]');
    var remove = event.target.closest('[data-remove]');
    if (add) {
      var list = add.closest('[data-kind=list]');
      var row = list.querySelector(':scope > template').content.firstElementChild.cloneNode(true);
      renumber(row);
      list.querySelector(':scope > [data-rows]').appendChild(row);
      refresh();
      var first = row.querySelector('input, select');
      if (first) first.focus();
    } else if (remove) {
      var owner = remove.closest('[data-kind=list]');
      remove.closest('[data-row]').remove();
      refresh();
      owner.querySelector(':scope > [data-add]').focus();
    }
  });

  form.addEventListener('change', function (event) {
    if (event.target.getAttribute('data-part') === 'key') {
      var option = event.target.selectedOptions[0];
      var input = event.target.closest('[data-kind=keyed]').querySelector('[data-part=value]');
      var listId = option.getAttribute('data-list');
      if (listId) input.setAttribute('list', listId);
      else input.removeAttribute('list');
    }
    refresh();
  });
  form.addEventListener('input', refresh);

  // Saving sends the document built from the fields (portal.js posts the data-body textarea).
  form.addEventListener(
    'submit',
    function () {
      clearErrors();
      sent.value = JSON.stringify(documentOf());
    },
    true,
  );

  function clearErrors() {
    Array.prototype.forEach.call(form.querySelectorAll('.field-error'), function (p) {
      p.remove();
    });
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (el) {
      el.removeAttribute('aria-invalid');
      var by = (el.getAttribute('aria-describedby') || '').split(' ').filter(function (id) {
        return id.indexOf('err-') !== 0;
      });
      el.setAttribute('aria-describedby', by.join(' '));
    });
  }

  /**
   * The field an error names: details.field, or the path in a schema message ("... body/discount/percent
   * must be number", "... body/schedule/0 must have required property 'from'").
   */
  function fieldOf(error) {
    if (error.details && error.details.field) return error.details.field;
    var text = error.message || '';
    var m = /\bbody((?:\/[^\s/]+)*)(?: must have required property '([^']+)')?/.exec(text);
    if (!m) return null;
    var segments = m[1].split('/').filter(Boolean);
    if (m[2]) segments.push(m[2]);
    if (segments.length === 0) return null;
    return segments
      .map(function (s, i) {
        return /^\d+$/.test(s) ? '[' + s + ']' : (i ? '.' : '') + s;
      })
      .join('');
  }

  /** The owner's words for a field (by its path without list indexes), from the page. */
  var wordsBlock = document.getElementById('field-messages');
  var words = wordsBlock ? JSON.parse(wordsBlock.textContent) : { fields: {} };
  function wordsFor(path) {
    var key = path.replace(/\[\d+\]/g, '');
    while (key) {
      if (words.fields[key]) return words.fields[key];
      var shorter = key.replace(/\.[^.]*$/, '');
      key = shorter === key ? '' : shorter;
    }
    return words.checkField || '';
  }

  /** Puts the error's message beside the field it names (the draft of a dry run is campaigns[0] / schemes[0]). */
  function showError(event) {
    var error = event.detail && event.detail.error;
    if (!error) return;
    clearErrors();
    var path = fieldOf(error);
    if (!path) return;
    // The dry run and its run over the last baskets send the form's definition as their draft.
    var tried = event.currentTarget === dry || event.currentTarget === last;
    if (tried && !/^(campaigns|schemes)\[0\]\./.test(path)) return;
    path = path.replace(/^(campaigns|schemes)\[0\]\./, '');
    var named = path;
    while (path && !fields[path]) {
      var shorter = path.replace(/(\.[^.[]*|\[\d+\])$/, '');
      path = shorter === path ? '' : shorter;
    }
    // A member the form fills through its parts (a scheme's tierBasis, its period): the first part.
    var target =
      fields[path] ||
      fields[
        Object.keys(fields).find(function (k) {
          return k.indexOf(named + '.') === 0;
        })
      ];
    if (!target) return;
    var box = target.matches('[data-row], fieldset, .keyed') ? target : target.closest('.field') || target;
    var p = document.createElement('p');
    p.className = 'field-error';
    p.id = 'err-' + ++seq;
    p.textContent = wordsFor(named);
    box.appendChild(p);
    // The form's own box says where to look, in words, instead of the API's message.
    var summary = event.currentTarget.querySelector(':scope > .form-error');
    if (summary) summary.textContent = tried ? words.notTried : words.notSaved;
    var controls = target.matches('input, select') ? [target] : target.querySelectorAll('input, select');
    Array.prototype.forEach.call(controls, function (c) {
      c.setAttribute('aria-invalid', 'true');
      c.setAttribute('aria-describedby', ((c.getAttribute('aria-describedby') || '') + ' ' + p.id).trim());
    });
    if (controls[0]) controls[0].focus();
  }

  form.addEventListener('portal:error', showError);
  var dry = document.getElementById('dry-run');
  if (dry) dry.addEventListener('portal:error', showError);
  var last = document.getElementById('dry-last');
  if (last) last.addEventListener('portal:error', showError);
  refresh();
})();
