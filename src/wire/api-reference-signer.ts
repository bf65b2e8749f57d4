/**
 * The script of /docs that signs checkout orders in the browser (docs/decisions.md, "Examples and
 * webhooks in the reference"): the integrator pastes the security secret into the page; the
 * request interceptor computes Security-Token with WebCrypto over the exact body text Swagger UI
 * sends, with a fresh Timestamp and (when none was typed) a new Idempotency-Key. The secret stays
 * in the page's memory and is never sent anywhere.
 */
export const ORDER_SIGNER_JS = `(function () {
  'use strict';
  var secret = '';
  var encoder = new TextEncoder();
  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (b) { return b.toString(16).padStart(2, '0'); }).join('');
  }
  function header(headers, name) {
    var found = Object.keys(headers).find(function (k) { return k.toLowerCase() === name.toLowerCase(); });
    return found === undefined ? '' : String(headers[found]);
  }
  function setHeader(headers, name, value) {
    Object.keys(headers).forEach(function (k) { if (k.toLowerCase() === name.toLowerCase()) delete headers[k]; });
    headers[name] = value;
  }
  window.punchcardSignOrder = async function (request) {
    var url = new URL(request.url, window.location.href);
    if (!secret || String(request.method).toUpperCase() !== 'POST' || !/\\/api\\/v1\\/orders$/.test(url.pathname)) {
      return request;
    }
    if (!window.crypto || !window.crypto.subtle) return request;
    var body = typeof request.body === 'string' ? request.body : '';
    var typed = header(request.headers, 'Idempotency-Key');
    var key = typed && typed !== 'made-when-sent' ? typed : window.crypto.randomUUID();
    var timestamp = String(Math.floor(Date.now() / 1000));
    var hmacKey = await window.crypto.subtle.importKey(
      'raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    var signature = await window.crypto.subtle.sign(
      'HMAC', hmacKey, encoder.encode(timestamp + '\\n' + key + '\\n' + body));
    setHeader(request.headers, 'Idempotency-Key', key);
    setHeader(request.headers, 'Timestamp', timestamp);
    setHeader(request.headers, 'Security-Token', hex(signature));
    return request;
  };
  function addPanel() {
    // Outside the element Swagger UI renders into: a node inserted among its own would break its rendering.
    var anchor = document.getElementById('swagger-ui');
    if (!anchor || document.getElementById('pc-signer')) return !!anchor;
    var panel = document.createElement('section');
    panel.id = 'pc-signer';
    panel.className = 'pc-signer';
    var label = document.createElement('label');
    label.textContent = 'Checkout security secret ';
    var input = document.createElement('input');
    input.type = 'password';
    input.autocomplete = 'off';
    input.spellcheck = false;
    input.placeholder = 'securitySecret of your checkout client';
    input.setAttribute('aria-describedby', 'pc-signer-note');
    input.addEventListener('input', function () { secret = input.value; });
    label.appendChild(input);
    var note = document.createElement('p');
    note.id = 'pc-signer-note';
    note.textContent = window.crypto && window.crypto.subtle
      ? 'Orders sent with "Try it out" are signed in this browser (Timestamp, Idempotency-Key, Security-Token). The secret stays on this page and is never sent.'
      : 'Signing needs a secure page (https or localhost); this page cannot sign.';
    panel.appendChild(label);
    panel.appendChild(note);
    anchor.parentNode.insertBefore(panel, anchor);
    return true;
  }
  var tries = 0;
  var timer = setInterval(function () { if (addPanel() || ++tries > 200) clearInterval(timer); }, 50);
})();
`;
