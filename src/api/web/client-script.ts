/**
 * The pages' script. On the detail page: keyboard shortcuts for the decision form (`a`
 * approves, `d` goes to the message, Ctrl+Enter in it denies), never while typing elsewhere.
 * On the list page: the list's script, served from /approvals/app.js so the CSP can forbid inline script.
 * The server pushes the version of the member's pending set over SSE; when it differs from the
 * version on the page, the script fetches the server-rendered list again and swaps it in. All
 * escaping stays on the server: the script never builds markup from data.
 */
export const clientScript = `'use strict';
(function () {
  var form = document.querySelector('form.decide');
  if (!form) return;
  var reason = form.querySelector('textarea');
  function press(value) {
    var button = form.querySelector('button[value="' + value + '"]');
    if (button) button.click();
  }
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    var typing = target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT');
    if (target === reason && event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      press('deny');
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'a') { event.preventDefault(); press('approve'); }
    if (event.key === 'd' && reason) { event.preventDefault(); reason.focus(); }
  });
})();
(function () {
  var list = document.getElementById('approvals');
  var live = document.getElementById('live');
  if (!list || !window.EventSource) return;

  function setLive(online) {
    if (!live) return;
    live.textContent = online ? 'Live' : 'Reconnecting…';
    live.classList.toggle('offline', !online);
  }

  var fetching = false;
  var again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch('/approvals/list' + window.location.search, { headers: { accept: 'text/html' }, cache: 'no-store' })
      .then(function (response) {
        if (response.status === 401) {
          if (!leaving) window.location.assign('/login');
          return null;
        }
        return response.ok ? response.text() : null;
      })
      .then(function (text) {
        if (text === null) return;
        var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById('approvals');
        if (!fresh) return;
        list.replaceWith(fresh);
        list = fresh;
      })
      .catch(function () { setTimeout(refresh, 2000); })
      .finally(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  // A page already being left (a form posted: sign out, a decision) is sent nowhere else: a
  // second navigation would cut the first one short.
  var leaving = false;
  window.addEventListener('beforeunload', function () { leaving = true; });

  var stream = new EventSource('/approvals/stream');
  stream.addEventListener('open', function () { setLive(true); });
  stream.addEventListener('pending', function (event) {
    setLive(true);
    if (event.data !== list.getAttribute('data-version')) refresh();
  });
  stream.addEventListener('signed-out', function () {
    stream.close();
    if (!leaving) window.location.assign('/login');
  });
  stream.addEventListener('error', function () {
    setLive(false);
    // A refused stream (signed out) is not retried by the browser: let the server decide.
    if (stream.readyState === EventSource.CLOSED) {
      setTimeout(function () { window.location.reload(); }, 2000);
    }
  });
})();
`;
