// medspa-mock inspector: one dependency-free script. Every call it makes is an operation of
// api/admin-openapi.yaml; the admin token, when the server has one, is asked once, kept in
// sessionStorage and sent as a header. Everything is shown with textContent (never as HTML).
'use strict';
(function () {
  const $ = (sel) => document.querySelector(sel);
  const EVENT_TYPES = ['patient.created', 'patient.updated', 'appointment.created', 'appointment.updated',
    'appointment.cancelled', 'invoice.created', 'invoice.paid', 'invoice.voided', 'payment.succeeded', 'payment.failed',
    'refund.created', 'product.created', 'inventory.adjusted', 'inventory.low_stock', 'webhook.test'];
  const ID_FIELDS = { pat: 'patientId', apt: 'appointmentId', inv: 'invoiceId', pay: 'paymentId', prd: 'productId', whk: 'webhookId' };
  const MAX_ROWS = 500;
  const state = {
    account: sessionStorage.getItem('medspa.account') || '',
    token: sessionStorage.getItem('medspa.adminToken') || '',
    requests: [], triggered: [], keys: [], stream: null, timers: {},
  };

  // --- calls -------------------------------------------------------------------------------
  class Problem extends Error {}

  async function api(method, path, body) {
    const headers = { Accept: 'application/json' };
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    const init = { method, headers, cache: 'no-store', credentials: 'same-origin' };
    if (method === 'POST') {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body || {});
    }
    const resp = await fetch(path, init);
    if (resp.status === 401) {
      askToken();
      throw new Problem('the admin surface needs its token');
    }
    const text = await resp.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = null; }
    }
    if (!resp.ok) {
      let msg = (data && (data.detail || data.title)) || ('HTTP ' + resp.status);
      if (data && Array.isArray(data.errors)) {
        msg += ': ' + data.errors.map((e) => e.pointer + ' ' + e.detail).join('; ');
      }
      throw new Problem(msg);
    }
    return data;
  }

  function q(extra) {
    const p = new URLSearchParams();
    if (state.account) p.set('account', state.account);
    for (const [k, v] of Object.entries(extra || {})) p.set(k, v);
    const s = p.toString();
    return s ? '?' + s : '';
  }

  function say(msg, error) {
    const el = $('#status');
    el.textContent = msg;
    el.classList.toggle('error', !!error);
  }

  // run wraps a user action: its errors are shown, never thrown.
  function run(f) {
    return async (ev) => {
      if (ev) ev.preventDefault();
      try { await f(ev); } catch (e) { say(e.message, true); }
    };
  }

  function askToken() {
    const f = $('#token-form');
    if (f.hidden) {
      f.hidden = false;
      $('#token').focus();
    }
  }

  // --- tables -------------------------------------------------------------------------------
  function fill(table, cols, rows, rowClass) {
    const caption = table.querySelector('caption');
    table.replaceChildren();
    if (caption) table.append(caption);
    const thead = table.createTHead().insertRow();
    for (const c of cols) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = c.title;
      thead.append(th);
    }
    const body = table.createTBody();
    for (const r of rows) {
      const tr = body.insertRow();
      if (rowClass) tr.className = rowClass(r) || '';
      for (const c of cols) {
        const td = tr.insertCell();
        const v = c.get(r);
        if (v instanceof Node) td.append(v); else td.textContent = v == null ? '' : String(v);
        if (c.cls) td.className = c.cls(r) || '';
      }
    }
  }

  function button(label, onClick, title) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'quiet';
    b.textContent = label;
    if (title) b.setAttribute('aria-label', title);
    b.addEventListener('click', run(onClick));
    return b;
  }

  const time = (t) => (t ? String(t).replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z') : '');

  // --- requests -----------------------------------------------------------------------------
  function statusClass(s) { return 's' + String(s || 0)[0]; }

  function renderRequests() {
    const st = $('#filter-status').value;
    const path = $('#filter-route').value.trim();
    const rows = state.requests.filter((e) =>
      (st === '' || (st === '0' ? e.status === 0 : String(e.status)[0] === st)) &&
      (path === '' || e.path.includes(path))).slice(-MAX_ROWS).reverse();
    fill($('#requests'), [
      { title: 'At', get: (e) => time(e.at) },
      { title: 'Method', get: (e) => e.method },
      { title: 'Path', get: (e) => e.path },
      { title: 'Status', get: (e) => e.status, cls: (e) => statusClass(e.status) },
      { title: 'ms', get: (e) => e.durationMs },
      { title: 'Fault / stub', get: (e) => [e.fault, e.stub].filter(Boolean).join(' ') },
      { title: 'Request id', get: (e) => e.requestId },
      { title: 'Account', get: (e) => e.account || '' },
    ], rows);
  }

  // loadRequests reads the journal and keeps what the stream brought meanwhile (the stream is
  // open before the journal is read, so no request falls between them).
  async function loadRequests() {
    const d = await api('GET', '/__admin/requests' + q());
    const listed = d.requests || [];
    const seen = new Set(listed.map((e) => e.requestId));
    state.requests = listed.concat(state.requests.filter((e) => !seen.has(e.requestId))).slice(-MAX_ROWS);
    renderRequests();
  }

  // --- deliveries ---------------------------------------------------------------------------
  function headersOf(d) {
    if (!d.requestHeaders) return '';
    const det = document.createElement('details');
    const sum = document.createElement('summary');
    sum.textContent = 'headers';
    const pre = document.createElement('pre');
    pre.className = 'mono';
    pre.textContent = Object.entries(d.requestHeaders).map(([k, v]) => k + ': ' + v).join('\n');
    det.append(sum, pre);
    return det;
  }

  async function loadDeliveries() {
    const d = await api('GET', '/__admin/deliveries' + q());
    const rows = (d.deliveries || []).slice(-MAX_ROWS).reverse();
    fill($('#deliveries'), [
      { title: 'Id', get: (x) => x.id },
      { title: 'At', get: (x) => time(x.at) },
      { title: 'Event', get: (x) => x.eventType + ' ' + x.eventId },
      { title: 'Endpoint', get: (x) => x.endpointId },
      { title: 'Attempt', get: (x) => x.attempt + (x.resendOf ? ' (resend)' : '') },
      { title: 'Outcome', get: (x) => x.outcome, cls: (x) => (x.delivered ? 's2' : 's5') },
      { title: 'Status', get: (x) => x.statusCode || '' },
      { title: 'Error', get: (x) => x.error || '' },
      { title: 'ms', get: (x) => x.durationMs },
      { title: 'Next retry', get: (x) => time(x.nextAttemptAt) },
      { title: 'Sent', get: headersOf },
      { title: 'Resend', get: (x) => (x.endpointId ? button('Resend', () => resend(x), 'Resend ' + x.id) : '') },
    ], rows);
  }

  async function resend(x) {
    const d = await api('POST', '/__admin/deliveries/' + encodeURIComponent(x.id) + '/resend', {});
    say('Resent ' + x.id + ': attempt ' + d.attempt + ', ' + d.outcome + (d.statusCode ? ' ' + d.statusCode : ''));
    await loadDeliveries();
  }

  // --- events -------------------------------------------------------------------------------
  async function trigger() {
    if (!state.account) throw new Problem('follow an account first: events happen in one account');
    const body = { type: $('#event-type').value, account: state.account };
    const id = $('#event-id').value.trim();
    if (id) {
      const field = ID_FIELDS[id.split('_')[0]];
      if (!field) throw new Problem('the id must start with one of ' + Object.keys(ID_FIELDS).join(', '));
      body.ids = { [field]: id };
    }
    const d = await api('POST', '/__admin/events', body);
    state.triggered.push(d);
    say('Triggered ' + d.type + ': ' + d.records.map((r) => r.kind + ' ' + r.id + ' ' + r.action).join(', '));
    fill($('#triggered'), [
      { title: 'Type', get: (t) => t.type },
      { title: 'Records', get: (t) => t.records.map((r) => r.kind + ' ' + r.id + ' (' + r.action + ')').join(', ') },
      { title: 'Events', get: (t) => t.events.map((e) => e.type + ' ' + e.id).join(', ') },
    ], state.triggered.slice().reverse());
  }

  // --- audit --------------------------------------------------------------------------------
  async function loadAudit() {
    const verdict = $('#audit-verdict');
    if (!state.account) {
      verdict.textContent = 'Follow an account to check its chain.';
      verdict.className = 'verdict';
      return;
    }
    const d = await api('GET', '/__admin/audit-events' + q());
    const events = d.events || [];
    if (d.verified) {
      verdict.textContent = 'Verified: ' + events.length + ' events form an intact chain.';
      verdict.className = 'verdict ok';
    } else {
      verdict.textContent = 'Broken chain: the first bad event is ' + (d.firstBroken || 'unknown') + '.';
      verdict.className = 'verdict bad';
    }
    fill($('#audit'), [
      { title: 'Id', get: (e) => e.id },
      { title: 'At', get: (e) => time(e.at) },
      { title: 'Actor', get: (e) => e.actor },
      { title: 'Action', get: (e) => e.action },
      { title: 'Resource', get: (e) => (e.resourceType || '') + ' ' + (e.resourceId || '') },
      { title: 'Outcome', get: (e) => e.outcome },
      { title: 'Request', get: (e) => e.requestId },
    ], events.slice(-MAX_ROWS).reverse(), (e) => (e.id === d.firstBroken ? 'broken' : ''));
  }

  // --- clock --------------------------------------------------------------------------------
  function showClock(c) {
    $('#clock-now').textContent = time(c.now);
    $('#clock-frozen').textContent = c.frozen ? '(frozen)' : '(running)';
  }
  const loadClock = async () => showClock(await api('GET', '/__admin/clock' + q()));
  const clockBody = (b) => (state.account ? Object.assign(b, { account: state.account }) : b);

  // --- faults and stubs ---------------------------------------------------------------------
  async function loadFaults() {
    const d = await api('GET', '/__admin/faults' + q());
    fill($('#faults'), [
      { title: 'Id', get: (f) => f.id },
      { title: 'Method', get: (f) => f.method || 'any' },
      { title: 'Path', get: (f) => f.path || 'any' },
      { title: 'Status', get: (f) => f.status || (f.dropConnection ? 'drop' : 'delay') },
      { title: 'Left', get: (f) => f.left },
      { title: 'Used', get: (f) => f.used },
      { title: 'Last used', get: (f) => time(f.lastUsedAt) },
      { title: 'Account', get: (f) => f.account || 'any' },
    ], d.faults || []);
  }

  async function loadStubs() {
    const d = await api('GET', '/__admin/stubs' + q());
    fill($('#stubs'), [
      { title: 'Id', get: (s) => s.id },
      { title: 'Route', get: (s) => s.method + ' ' + (s.route || s.path) },
      { title: 'Status', get: (s) => s.status },
      { title: 'Left', get: (s) => (s.left == null ? 'until deleted' : s.left) },
      { title: 'Used', get: (s) => s.used },
      { title: 'Last used', get: (s) => time(s.lastUsedAt) },
      { title: 'Delete', get: (s) => button('Delete', async () => { await api('DELETE', '/__admin/stubs/' + encodeURIComponent(s.id)); await loadStubs(); }, 'Delete stub ' + s.id) },
    ], d.stubs || []);
  }

  async function armFault() {
    const body = { status: Number($('#fault-status').value), times: Number($('#fault-times').value) };
    if ($('#fault-method').value) body.method = $('#fault-method').value;
    if ($('#fault-path').value.trim()) body.path = $('#fault-path').value.trim();
    if (state.account) body.account = state.account;
    await api('POST', '/__admin/faults', body);
    say('Fault armed');
    await loadFaults();
  }

  async function armStub() {
    const body = { route: $('#stub-route').value.trim(), status: Number($('#stub-status').value), times: Number($('#stub-times').value) };
    const raw = $('#stub-body').value.trim();
    if (raw) {
      try { body.body = JSON.parse(raw); } catch (e) { throw new Problem('the stub body is not JSON'); }
    }
    if (state.account) body.account = state.account;
    const s = await api('POST', '/__admin/stubs', body);
    say('Stub ' + s.id + ' armed');
    await loadStubs();
  }

  // --- keys ---------------------------------------------------------------------------------
  function renderKeys() {
    fill($('#keys'), [
      { title: 'Key id', get: (k) => k.id },
      { title: 'Account', get: (k) => k.account },
      { title: 'Plan', get: (k) => k.plan },
      { title: 'Follow', get: (k) => button('Follow', () => follow(k.account), 'Follow account ' + k.account) },
    ], state.keys);
  }

  function showSecret(label, key) {
    const p = $('#key-secret');
    p.hidden = false;
    p.textContent = label + ' (shown once): ' + key;
  }

  async function createKey() {
    const body = { plan: $('#key-plan').value, scopes: $('#key-scopes').value.split(/\s+/).filter(Boolean) };
    if ($('#key-account').value.trim()) body.account = $('#key-account').value.trim();
    const k = await api('POST', '/__admin/api-keys', body);
    state.keys.push({ id: k.id, account: k.account, plan: k.plan });
    showSecret('API key ' + k.id, k.key);
    $('#key-id').value = k.id;
    renderKeys();
  }

  async function rotateKey() {
    const id = $('#key-id').value.trim();
    const k = await api('POST', '/__admin/api-keys/' + encodeURIComponent(id) + '/rotate', { graceSeconds: Number($('#key-grace').value) });
    showSecret('New secret of ' + id, k.key);
  }

  async function revokeKey() {
    const id = $('#key-id').value.trim();
    if (!id) throw new Problem('name a key id');
    await api('DELETE', '/__admin/api-keys/' + encodeURIComponent(id));
    say('Revoked ' + id);
  }

  // --- the live stream ----------------------------------------------------------------------
  // The stream is read with fetch (EventSource cannot send the admin token as a header).
  // opened is called once the server has subscribed the stream (or it failed).
  async function connect(opened) {
    if (state.stream) state.stream.abort();
    const ctl = new AbortController();
    state.stream = ctl;
    $('#live').textContent = 'connecting…';
    const headers = {};
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    try {
      const resp = await fetch('/__admin/stream' + q(), { headers, signal: ctl.signal, cache: 'no-store' });
      if (opened) opened();
      if (resp.status === 401) { askToken(); $('#live').textContent = 'not live: admin token needed'; return; }
      if (!resp.ok || !resp.body) throw new Error('HTTP ' + resp.status);
      $('#live').textContent = 'live';
      const reader = resp.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          onMessage(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
      }
    } catch (e) {
      if (opened) opened();
      if (ctl.signal.aborted) return;
    }
    if (state.stream === ctl) {
      $('#live').textContent = 'reconnecting…';
      setTimeout(() => connect(() => run(loadRequests)()), 1000); // what came meanwhile is in the journal
    }
  }

  function onMessage(msg) {
    let event = '';
    let data = '';
    for (const line of msg.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (!event || !data) return;
    const v = JSON.parse(data);
    if (event === 'request') {
      state.requests.push(v);
      if (state.requests.length > 2 * MAX_ROWS) state.requests = state.requests.slice(-MAX_ROWS);
      soon('requests', renderRequests);
      if (v.fault) soon('faults', loadFaults);
      if (v.stub) soon('stubs', loadStubs);
    } else if (event === 'delivery') {
      soon('deliveries', loadDeliveries);
    } else if (event === 'audit' && !$('#pane-audit').hidden) {
      soon('audit', loadAudit);
    }
  }

  // soon runs f once shortly, however many messages ask for it meanwhile.
  function soon(name, f) {
    if (state.timers[name]) return;
    state.timers[name] = setTimeout(async () => {
      state.timers[name] = null;
      try { await f(); } catch (e) { say(e.message, true); }
    }, 100);
  }

  // --- tabs ---------------------------------------------------------------------------------
  const loaders = { requests: loadRequests, deliveries: loadDeliveries, events: async () => {}, audit: loadAudit,
    clock: loadClock, faults: async () => { await loadFaults(); await loadStubs(); }, keys: async () => renderKeys() };

  function select(tab, focus) {
    for (const t of document.querySelectorAll('[role=tab]')) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    }
    if (focus) tab.focus();
    const name = tab.id.slice(4);
    location.hash = name;
    run(loaders[name])();
  }

  function follow(account) {
    state.account = account;
    state.requests = [];
    sessionStorage.setItem('medspa.account', account);
    $('#account').value = account;
    reload();
  }

  function reload() {
    const tab = document.querySelector('[role=tab][aria-selected=true]');
    run(async () => {
      await new Promise((resolve) => connect(resolve));
      await loadRequests();
      if (tab.id !== 'tab-requests') await loaders[tab.id.slice(4)]();
    })();
  }

  function init() {
    const sel = $('#event-type');
    for (const t of EVENT_TYPES) sel.append(new Option(t, t));
    $('#account').value = state.account;
    const tabs = Array.from(document.querySelectorAll('[role=tab]'));
    for (const t of tabs) t.addEventListener('click', () => select(t, false));
    $('#tabs').addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(document.activeElement);
      if (i < 0) return;
      let k = -1;
      if (ev.key === 'ArrowRight') k = (i + 1) % tabs.length;
      else if (ev.key === 'ArrowLeft') k = (i - 1 + tabs.length) % tabs.length;
      else if (ev.key === 'Home') k = 0;
      else if (ev.key === 'End') k = tabs.length - 1;
      if (k >= 0) { ev.preventDefault(); select(tabs[k], true); }
    });
    $('#account-form').addEventListener('submit', (ev) => { ev.preventDefault(); follow($('#account').value.trim()); });
    $('#token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      state.token = $('#token').value;
      sessionStorage.setItem('medspa.adminToken', state.token);
      $('#token-form').hidden = true;
      reload();
    });
    $('#request-filter').addEventListener('input', renderRequests);
    $('#request-filter').addEventListener('submit', (ev) => ev.preventDefault());
    $('#deliveries-refresh').addEventListener('click', run(loadDeliveries));
    $('#event-form').addEventListener('submit', run(trigger));
    $('#audit-refresh').addEventListener('click', run(loadAudit));
    $('#clock-set').addEventListener('submit', run(async () => showClock(await api('POST', '/__admin/clock', clockBody({ now: $('#clock-at').value.trim() })))));
    $('#clock-advance').addEventListener('submit', run(async () => showClock(await api('POST', '/__admin/clock', clockBody({ advance: $('#clock-by').value.trim() })))));
    $('#clock-real').addEventListener('click', run(async () => showClock(await api('POST', '/__admin/clock', clockBody({ real: true })))));
    $('#fault-form').addEventListener('submit', run(armFault));
    $('#faults-clear').addEventListener('click', run(async () => { await api('DELETE', '/__admin/faults'); await loadFaults(); }));
    $('#stub-form').addEventListener('submit', run(armStub));
    $('#key-form').addEventListener('submit', run(createKey));
    $('#key-manage').addEventListener('submit', run(rotateKey));
    $('#key-revoke').addEventListener('click', run(revokeKey));
    const start = tabs.find((t) => t.id === 'tab-' + location.hash.slice(1));
    if (start) select(start, false);
    reload();
  }

  init();
}());
