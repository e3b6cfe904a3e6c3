import { createHash } from 'node:crypto';

// The viewer's style sheet, inlined in every page (its Content-Security-Policy allows it by its hash), and its
// script, served from /assets/ (no inline script is allowed). What a new tab paints first is rastered by the
// CPU on a busy machine: few sizes and weights of type (each is a set of glyphs drawn anew in each tab), no
// layer of its own for any element (no sticky or fixed header), and an item's text in a column of reading
// width (the tiles beside it stay blank, with nothing to raster). The script only follows live changes and
// fills parts counted after the first paint; every page works without it.

export const VIEW_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; --accent: #0969da; --panel: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --good: #3fb950; --bad: #f85149; --warn: #d29922; --accent: #4493f8; --panel: #151b23; } }
* { box-sizing: border-box; }
html { font-size: 15px; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; gap: 1em; padding: .6em 1.5em; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; margin-right: .4em; }
#live { color: var(--muted); font-size: .93rem; }
main { padding: 1em 1.5em 3em; max-width: 1400px; }
.item { max-width: 64em; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, select:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1em; top: .5em; z-index: 2; background: var(--bg); padding: .3em; }
h1 { font-size: 1.5em; margin: .4em 0; } h2 { font-size: 1.2em; margin-top: 1.6em; } h3 { font-size: 1rem; } h4 { margin: .8em 0 .2em; font-size: .93rem; color: var(--muted); }
.meta, .muted { color: var(--muted); }
.good { color: var(--good); } .bad { color: var(--bad); }
table { border-collapse: collapse; margin: .6em 0; font-size: .93rem; }
caption { text-align: left; color: var(--muted); padding: .2em 0; }
th, td { border-bottom: 1px solid var(--line); padding: .35em .55em; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 700; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 40em; }
table.list tbody tr:hover { background: var(--panel); }
.state, .verdict, .citation { display: inline-block; padding: 0 .5em; border-radius: 1em; font-size: .93rem; font-weight: 400; border: 1px solid var(--line); white-space: nowrap; }
.state.completed, .state.complete, .verdict.v0, .citation.valid { color: var(--good); border-color: var(--good); }
.state.error, .state.failed, .state.client_error, .state.timeout, .state.http_error, .state.truncated, .verdict.v1, .verdict.v3, .citation.invalid { color: var(--bad); border-color: var(--bad); }
.state.running, .state.pending, .verdict.vrunning { color: var(--warn); border-color: var(--warn); }
form.filters { display: flex; flex-wrap: wrap; gap: .6em 1em; align-items: end; padding: .6em; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
form.filters label { display: flex; flex-direction: column; font-size: .93rem; color: var(--muted); }
select, input, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .2em .4em; }
button { cursor: pointer; background: var(--accent); color: #fff; border-color: var(--accent); }
.pager { display: flex; gap: 1em; margin: .5em 0; align-items: center; }
.turn { border: 1px solid var(--line); border-radius: 6px; padding: .2em 1em .6em; margin: 1em 0; }
.answer, .question { overflow-wrap: anywhere; }
.answer pre, .summary pre, pre { background: var(--panel); padding: .6em; overflow-x: auto; border-radius: 4px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; }
.callout { border-left: 4px solid var(--warn); padding: .4em .8em; background: var(--panel); }
ul.key { padding-left: 1.2em; } details > summary { cursor: pointer; color: var(--accent); margin: .6em 0; }
ul.sources li, ul.others li { margin: .15em 0; }
.summary table, .figures table { display: block; overflow-x: auto; }
.figures { font-size: .93rem; } .figures h3 { margin: .8em 0 .2em; } .figures p { margin: .3em 0; max-width: 70em; }
.align-right { text-align: right; font-variant-numeric: tabular-nums; } .align-center { text-align: center; }
`;

export const VIEW_JS = `
(function () {
  var run = document.body.getAttribute('data-live-run');
  var shown = document.body.getAttribute('data-version');
  var live = document.getElementById('live');
  // Nothing here is needed for the first paint: it starts once the page has painted (or after a second), so
  // its requests and their work never compete with the paint on a busy machine.
  function afterFirstPaint(start) {
    var started = false;
    function go() { if (!started) { started = true; start(); } }
    setTimeout(go, 1000);
    try { new PerformanceObserver(go).observe({ type: 'paint', buffered: true }); } catch (e) { go(); }
  }
  // Parts of a page that take long to count arrive after its first paint.
  function fill() {
    var parts = document.querySelectorAll('[data-fragment]');
    for (var i = 0; i < parts.length; i++) (function (part) {
      fetch(part.getAttribute('data-fragment'), { headers: { 'x-dsbench-fragment': '1' }, credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (text) { if (text !== null) { part.innerHTML = text; part.removeAttribute('aria-busy'); } })
        .catch(function () {});
    })(parts[i]);
  }
  var busy = false, again = false;
  function say(data) {
    var p = data && data.progress;
    if (!live || !p) return;
    live.textContent = p.status === 'running' ? 'live: ' + p.done + ' of ' + p.items + ' items done' : 'run ' + p.status;
    var badge = document.getElementById('run-status');
    if (badge) { badge.textContent = p.status; badge.className = 'state ' + p.status; }
  }
  function refresh() {
    var active = document.activeElement;
    // Never swap the page under someone typing in a filter.
    if (active && (active.tagName === 'INPUT' || active.tagName === 'SELECT')) { again = true; return; }
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { 'x-dsbench-fragment': '1' }, credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text !== null) { document.getElementById('app').innerHTML = text; fill(); }
        document.body.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  function follow() {
    if (!window.EventSource) return;
    var source = new EventSource('/events' + (run ? '?run=' + encodeURIComponent(run) : ''));
    // A commit between the page's making and this stream's start: the page is older than the data.
    source.addEventListener('hello', function (e) {
      var data = JSON.parse(e.data);
      say(data);
      if (shown !== null && String(data.version) !== shown) { shown = String(data.version); refresh(); }
    });
    source.addEventListener('change', function (e) { say(JSON.parse(e.data)); refresh(); });
  }
  document.addEventListener('focusout', function () { if (again) { again = false; setTimeout(refresh, 0); } });
  afterFirstPaint(function () { fill(); follow(); });
})();
`;

/** The script's address names its content, so a browser keeps it across pages and a new dsbench's is fetched anew. */
export const VIEW_JS_PATH = `/assets/view.js?v=${createHash('sha256').update(VIEW_JS).digest('hex').slice(0, 12)}`;
