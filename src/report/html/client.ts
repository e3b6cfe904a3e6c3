// The viewer that runs inside the HTML report: it reads the embedded JSON, draws the charts with
// Chart.js and pages the tables (a 100,000-row table is never put in the DOM at once). Plain ES2019 with no
// template literals, so it can live in this string unchanged.

export const PAGE_STYLE = `
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#fff; --soft:#f6f8fa; --bad:#cf222e; --good:#1a7f37; --warn:#9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.meta { color: var(--muted); margin: 0 0 12px; }
.warn { border-left: 4px solid #d97706; background: #fff7ed; padding: 8px 12px; margin: 0 0 12px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.verdict.pass { background: var(--good); } .verdict.fail { background: var(--bad); } .verdict.running { background: var(--warn); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
.chart { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px 12px; background: var(--bg); }
.chart h3 { font-size: 14px; margin: 0 0 6px; }
.chart .canvas { position: relative; height: 280px; }
.chart .note { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.clickable { cursor: pointer; } tr.clickable:hover { background: #eef4ff; } tr.selected { background: #ddf4ff; }
.bad { color: var(--bad); font-weight: 600; } .good { color: var(--good); font-weight: 600; }
.toolbar { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.toolbar input[type=search] { padding: 4px 8px; min-width: 260px; }
.pager { color: var(--muted); }
.detail { border: 1px solid var(--line); border-radius: 6px; padding: 12px; margin: 12px 0; background: var(--soft); }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; overflow-wrap: anywhere; }
.side h4 { margin: 0 0 6px; font-size: 13px; }
.answer { white-space: pre-wrap; font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
.answer del { background: #ffebe9; color: #82071e; text-decoration: line-through; }
.answer ins { background: #dafbe1; color: #044f1e; text-decoration: none; }
ul.plain { margin: 4px 0; padding-left: 18px; }
.muted { color: var(--muted); }
`;

export const CLIENT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('dsbench-data').textContent);
  var app = document.getElementById('app');
  var COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];
  var PAGE = 50;

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) for (var k in props) {
      if (k === 'text') node.textContent = props[k];
      else if (k === 'className') node.className = props[k];
      else if (k === 'onclick') node.onclick = props[k];
      else node.setAttribute(k, props[k]);
    }
    (children || []).forEach(function (c) { if (c != null) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function fmtMs(v) { if (v == null) return ''; return v >= 1000 ? (v / 1000).toFixed(v >= 100000 ? 0 : 1) + ' s' : Math.round(v) + ' ms'; }
  function fmtNum(v, d) { if (v == null) return ''; return Number(v).toLocaleString('en-US', { maximumFractionDigits: d == null ? 2 : d }); }
  function fmtPct(v) { return v == null ? '' : (v * 100).toFixed(1) + '%'; }
  function fmtSigned(v, unit) { if (v == null) return ''; return (v > 0 ? '+' : '') + fmtNum(v) + (unit ? ' ' + unit : ''); }
  function heading(text) { app.appendChild(el('h2', { text: text })); }
  function fmtEst(r, score) { if (!r || r.value == null) return ''; var f = score ? function (v) { return fmtNum(v, 3); } : fmtPct; return f(r.value) + ' (' + f(r.low) + ' … ' + f(r.high) + ')'; }
  function fmtPts(v) { return v == null ? '' : (v > 0 ? '+' : '') + (v * 100).toFixed(1); }
  function fmtP(p) { return p < 0.001 ? '< 0.001' : p.toPrecision(2); }

  var grid = null;
  function chartBox(title, note) {
    if (!grid) { grid = el('div', { className: 'grid' }); app.appendChild(grid); }
    var canvas = el('canvas');
    grid.appendChild(el('div', { className: 'chart' }, [el('h3', { text: title }), el('div', { className: 'canvas' }, [canvas]), note ? el('p', { className: 'note', text: note }) : null]));
    return canvas;
  }
  function endCharts() { grid = null; }
  var charts = [];
  function chart(canvas, config) {
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    charts.push(new Chart(canvas, config));
  }

  // Shared bins, so the targets' (or sides') histograms can be read against each other.
  function histogram(series, bins) {
    var all = [];
    series.forEach(function (s) { s.values.forEach(function (v) { if (v != null) all.push(v); }); });
    if (all.length === 0) return null;
    all.sort(function (a, b) { return a - b; });
    var lo = all[0], hi = all[Math.min(all.length - 1, Math.floor(all.length * 0.99))];
    if (hi <= lo) hi = lo + 1;
    var width = (hi - lo) / bins;
    var labels = [];
    for (var i = 0; i < bins; i++) labels.push(fmtMs(lo + width * i) + (i === bins - 1 ? '+' : ''));
    var datasets = series.map(function (s, j) {
      var counts = new Array(bins).fill(0);
      s.values.forEach(function (v) { if (v != null) counts[Math.max(0, Math.min(bins - 1, Math.floor((v - lo) / width)))]++; });
      return { label: s.label, data: counts, backgroundColor: COLORS[j % COLORS.length] + 'b0', borderColor: COLORS[j % COLORS.length], borderWidth: 1, barPercentage: 1, categoryPercentage: 0.9 };
    });
    return { labels: labels, datasets: datasets };
  }

  // A paged, filterable table over row arrays; cells are built only for the page shown.
  function pagedTable(columns, rows, options) {
    options = options || {};
    var box = el('div');
    var search = el('input', { type: 'search', placeholder: options.placeholder || 'Filter (id, state, code, text)' });
    var only = options.onlyLabel ? el('input', { type: 'checkbox' }) : null;
    var pager = el('span', { className: 'pager' });
    var prev = el('button', { text: 'Previous' }), next = el('button', { text: 'Next' });
    box.appendChild(el('div', { className: 'toolbar' }, [search, only ? el('label', {}, [only, ' ' + options.onlyLabel]) : null, prev, next, pager]));
    var thead = el('tr', {}, columns.map(function (c) { return el('th', { className: c.num ? 'num' : '', text: c.label }); }));
    var tbody = el('tbody');
    box.appendChild(el('table', {}, [el('thead', {}, [thead]), tbody]));
    var detail = el('div');
    box.appendChild(detail);
    var shown = rows, page = 0, selected = null;
    function apply() {
      var q = search.value.trim().toLowerCase();
      shown = rows.filter(function (r) {
        if (only && only.checked && !options.only(r)) return false;
        if (!q) return true;
        return columns.some(function (c) { var v = c.get(r); return v != null && String(v).toLowerCase().indexOf(q) >= 0; });
      });
      page = 0; draw();
    }
    function draw() {
      tbody.textContent = '';
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (r) {
        var tr = el('tr', { className: options.onRow ? 'clickable' : '' }, columns.map(function (c) {
          var v = c.get(r);
          var td = el('td', { className: (c.num ? 'num ' : '') + (c.cls ? c.cls(r) || '' : ''), text: c.fmt ? c.fmt(v, r) : v == null ? '' : String(v) });
          return td;
        }));
        if (options.onRow) tr.onclick = function () {
          if (selected) selected.classList.remove('selected');
          selected = tr; tr.classList.add('selected');
          detail.textContent = ''; detail.appendChild(options.onRow(r));
        };
        tbody.appendChild(tr);
      });
      pager.textContent = 'rows ' + (shown.length ? page * PAGE + 1 : 0) + '-' + Math.min(shown.length, (page + 1) * PAGE) + ' of ' + fmtNum(shown.length) + ' (page ' + (page + 1) + ' of ' + pages + ')';
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
    }
    var timer = null;
    search.oninput = function () { clearTimeout(timer); timer = setTimeout(apply, 150); };
    if (only) only.onchange = apply;
    prev.onclick = function () { page--; draw(); };
    next.onclick = function () { page++; draw(); };
    box.show = function (r) { var i = shown.indexOf(r); if (i >= 0) { page = Math.floor(i / PAGE); draw(); } if (options.onRow) { detail.textContent = ''; detail.appendChild(options.onRow(r)); } };
    draw();
    return box;
  }

  function staticTable(headers, rows, numeric) {
    return el('table', {}, [
      el('thead', {}, [el('tr', {}, headers.map(function (h, i) { return el('th', { className: numeric && numeric[i] ? 'num' : '', text: h }); }))]),
      el('tbody', {}, rows.map(function (r) { return el('tr', {}, r.map(function (c, i) { return el('td', { className: numeric && numeric[i] ? 'num' : '', text: c == null ? '' : String(c) }); })); })),
    ]);
  }

  // Word-level differences (longest common subsequence); long answers are compared by lines instead.
  function tokens(text, byLine) { return byLine ? text.split(/(\\n)/) : text.split(/(\\s+)/); }
  function diff(a, b) {
    var byLine = a.length + b.length > 40000;
    var x = tokens(a, byLine), y = tokens(b, byLine);
    if (x.length * y.length > 4e6) return null;
    var n = x.length, m = y.length, w = m + 1;
    var t = new Uint32Array((n + 1) * w);
    for (var i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) t[i * w + j] = x[i] === y[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
    var left = [], right = [];
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) { left.push([0, x[i]]); right.push([0, y[j]]); i++; j++; }
      else if (j < m && (i >= n || t[i * w + j + 1] >= t[(i + 1) * w + j])) { right.push([1, y[j]]); j++; }
      else { left.push([1, x[i]]); i++; }
    }
    return [left, right];
  }
  function answerNode(parts, tag) {
    var node = el('div', { className: 'answer' });
    parts.forEach(function (p) { node.appendChild(p[0] && /\\S/.test(p[1]) ? el(tag, { text: p[1] }) : document.createTextNode(p[1])); });
    return node;
  }
  function listNode(items) { return items && items.length ? el('ul', { className: 'plain' }, items.map(function (s) { return el('li', { text: s }); })) : el('p', { className: 'muted', text: 'none' }); }

  function fmtCredits(v) { return v == null ? 'not measured' : fmtNum(v); }
  // The judge's grades of one turn with their reasons, and every citation checked with its status.
  function gradingNode(g) {
    var box = el('div', { className: 'grading' });
    g.grades.forEach(function (x) {
      box.appendChild(el('p', { className: x.passed ? 'good' : 'bad', text: 'Judge (' + x.spec + '): ' + (x.score == null ? x.status : 'score ' + fmtNum(x.score, 2) + (x.passed ? ' >= ' : ' < ') + fmtNum(x.minScore, 2)) + (x.error ? ': ' + x.error : '') }));
      if (x.reasons.length) box.appendChild(listNode(x.reasons));
    });
    if (g.citations.length) {
      box.appendChild(el('h4', { text: 'Citations (' + g.citations.filter(function (c) { return c.status === 'valid'; }).length + ' of ' + g.citations.length + ' valid)' }));
      box.appendChild(el('ul', { className: 'plain citations' }, g.citations.map(function (c) {
        return el('li', {}, [el('span', { className: c.status === 'valid' ? 'good' : c.status === 'invalid' ? 'bad' : 'muted', text: c.status }), ' ' + c.link + (c.status === 'valid' ? '' : ': ' + c.reason)]);
      })));
    }
    return box;
  }
  function sideGrade(g) {
    if (!g || (g.score == null && g.valid + g.invalid === 0)) return null;
    return el('p', { className: 'muted grade', text: [g.score == null ? null : 'judge score ' + fmtNum(g.score, 2), g.valid + g.invalid === 0 ? null : 'citations ' + g.valid + ' of ' + (g.valid + g.invalid) + ' valid'].filter(Boolean).join('; ') });
  }

  function header(title, meta, verdict) {
    app.textContent = '';
    app.appendChild(el('h1', {}, [title, ' ', verdict ? el('span', { className: 'verdict ' + verdict[0], text: verdict[1] }) : null]));
    meta.forEach(function (m) { app.appendChild(el('p', { className: 'meta', text: m })); });
  }
  function runName(r) { return 'run ' + r.id + (r.label ? ' (' + r.label + ')' : ''); }

  function trendChart(history, title) {
    if (!history || history.length < 2) return;
    var runs = [], byTarget = {};
    history.forEach(function (h) { if (runs.indexOf(h.runId) < 0) runs.push(h.runId); (byTarget[h.target] = byTarget[h.target] || {})[h.runId] = h; });
    var datasets = [];
    Object.keys(byTarget).forEach(function (t, j) {
      var c = COLORS[j % COLORS.length];
      var pick = function (f) { return runs.map(function (r) { var h = byTarget[t][r]; return h ? f(h) : null; }); };
      datasets.push({ label: t + ' server p50 (s)', data: pick(function (h) { return h.serverMsP50 == null ? null : h.serverMsP50 / 1000; }), borderColor: c, backgroundColor: c, yAxisID: 'y' });
      datasets.push({ label: t + ' server p90 (s)', data: pick(function (h) { return h.serverMsP90 == null ? null : h.serverMsP90 / 1000; }), borderColor: c, backgroundColor: c, borderDash: [6, 4], yAxisID: 'y' });
      datasets.push({ label: t + ' pass rate (%)', data: pick(function (h) { return h.passRate == null ? null : h.passRate * 100; }), borderColor: c + '80', backgroundColor: c + '80', borderDash: [2, 2], yAxisID: 'y2' });
    });
    chart(chartBox(title, 'Solid: median server time; dashed: p90; dotted: pass rate (right axis).'), {
      type: 'line',
      data: { labels: runs.map(function (r) { return 'run ' + r; }), datasets: datasets },
      options: { spanGaps: true, scales: { y: { title: { display: true, text: 'seconds' }, beginAtZero: true }, y2: { position: 'right', min: 0, max: 100, title: { display: true, text: 'pass rate %' }, grid: { drawOnChartArea: false } } } },
    });
  }

  function renderReport(d) {
    var T = d.turnColumns;
    var col = function (name) { return T.indexOf(name); };
    var I = { target: col('target'), id: col('id'), repeat: col('repeat'), turn: col('turn'), state: col('state'), code: col('errorCode'), server: col('serverMs'), wall: col('wallMs'), tokens: col('tokens'), credits: col('credits'), verdict: col('verdict'), reasons: col('reasons'), item: col('itemVerdict'), answer: col('answer'), judge: col('judgeScore'), cv: col('citationsValid'), ci: col('citationsInvalid'), grading: col('grading'), message: col('errorMessage'), partial: col('partial') };
    var ex = d.expectations;
    var graded = d.turns.some(function (r) { return r[I.judge] != null || r[I.cv] + r[I.ci] > 0; });
    header('dsbench report: ' + runName(d.run) + ', suite ' + d.run.suiteName,
      ['Status ' + d.run.status + ', started ' + d.run.startedAt + (d.run.endedAt ? ', ended ' + d.run.endedAt : '') + '; database ' + d.db + '; generated ' + d.generatedAt,
       'Targets: ' + d.targets.map(function (t) { return t.name + ' ' + t.url + ' (' + t.api + ' API' + (t.servedByEmulator ? ', emulated' : '') + ')'; }).join('; ')],
      d.inProgress ? ['running', 'in progress'] : ex.failedItems > 0 ? ['fail', fmtNum(ex.failedItems) + ' of ' + fmtNum(ex.items) + ' items failed their checks'] : ex.items > 0 ? ['pass', 'all checks passed'] : null);
    (d.warnings || []).forEach(function (w) { app.appendChild(el('p', { className: 'warn', text: w })); });
    if (d.summary.length) app.appendChild(staticTable(['target', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50', 'server p90', 'tokens mean', 'cached tokens mean', 'credits'],
      d.summary.map(function (s) { return [s.target, s.items, s.completed, s.errors, s.questions, fmtPct(s.passRate), fmtMs(s.serverP50), fmtMs(s.serverP90), fmtNum(s.tokens, 0), fmtNum(s.cachedTokens, 0), fmtCredits(s.credits)]; }), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
    if (d.grades && d.grades.length) {
      heading('Grades and citations');
      var gradesTable = staticTable(['target', 'graded', 'mean score', 'passed', 'unparseable', 'judge errors', 'citations valid', 'invalid', 'unchecked', 'citation validity', 'judge tokens', 'cached'],
        d.grades.map(function (g) { return [g.target, g.graded + ' of ' + g.grades, fmtNum(g.meanScore, 2), g.passed, g.unparseable, g.errors, g.citations.valid, g.citations.invalid, g.citations.unchecked, fmtPct(g.citationValidity), fmtNum(g.judgeTokens, 0), g.cachedGrades]; }), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
      gradesTable.id = 'grades';
      app.appendChild(gradesTable);
    }

    var quality = d.quality && d.quality.targets.filter(function (t) { return t.passRate.value != null || t.judgeScore.value != null; });
    if (quality && quality.length) {
      heading('Quality and consistency');
      app.appendChild(el('p', { className: 'muted', text: Math.round(d.quality.confidence * 100) + '% intervals resample questions (a question with all its repeats). pass^k: all k repeats pass; pass@k: one does. Flaky: the repeats of a question disagreed.' }));
      var qualityTable = staticTable(['target', 'questions', 'pass rate', 'k', 'pass^k', 'pass@k', 'judge score', 'citation validity', 'flaky', 'quarantined'],
        quality.map(function (t) { return [t.target, t.passRate.clusters, fmtEst(t.passRate), t.k, t.k > 1 ? fmtEst(t.passHatK) : '', t.k > 1 ? fmtEst(t.passAtK) : '', fmtEst(t.judgeScore, true), fmtEst(t.citationValidity), t.flaky.length, t.quarantined.length]; }), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
      qualityTable.id = 'quality';
      app.appendChild(qualityTable);
      var marked = d.quality.questions.filter(function (q) { return q.label === 'flaky' || q.quarantined; });
      if (marked.length) app.appendChild(el('ul', { className: 'plain', id: 'flaky' }, marked.slice(0, 50).map(function (q) {
        return el('li', {}, [el('span', { className: q.label === 'flaky' ? 'bad' : 'muted', text: (q.label === 'flaky' ? 'flaky' : 'stable') + (q.quarantined ? ', quarantined' : '') }), ' ' + q.target + '/' + q.id + ': ' + q.passed + ' of ' + q.repeats + ' repeats passed']);
      })));
    }
    if (d.thresholds && d.thresholds.length) {
      heading('Thresholds');
      var thresholdsTable = staticTable(['metric', 'threshold', 'scope', 'value', 'result'], d.thresholds, [0, 0, 0, 1, 0]);
      thresholdsTable.id = 'thresholds';
      app.appendChild(thresholdsTable);
    }

    heading('Charts');
    var targets = d.targets.map(function (t) { return t.name; });
    var lat = histogram(targets.map(function (t) { return { label: t, values: d.turns.filter(function (r) { return r[I.target] === t && r[I.state] === 'completed'; }).map(function (r) { return r[I.server] != null ? r[I.server] : r[I.wall]; }) }; }), 30);
    if (lat) chart(chartBox('Latency distribution per target', 'Completed questions; server time (wall time where the server gave none); the last bin holds the slowest 1%.'), { type: 'bar', data: lat, options: { scales: { x: { title: { display: true, text: 'latency' } }, y: { title: { display: true, text: 'questions' }, beginAtZero: true } } } });
    if (d.tags.length) chart(chartBox('Credits and tokens by tag', d.tags.every(function (t) { return t.credits == null; }) ? 'Not measured: the versioned API reports no credits or tokens.' : 'Sums over the asked questions of each tag.'), {
      type: 'bar',
      data: { labels: d.tags.map(function (t) { return (targets.length > 1 ? t.target + ' / ' : '') + t.tag; }), datasets: [
        { label: 'credits', data: d.tags.map(function (t) { return t.credits; }), backgroundColor: COLORS[0], yAxisID: 'y' },
        { label: 'tokens', data: d.tags.map(function (t) { return t.tokens; }), backgroundColor: COLORS[3], yAxisID: 'y2' }] },
      options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'credits' } }, y2: { beginAtZero: true, position: 'right', title: { display: true, text: 'tokens' }, grid: { drawOnChartArea: false } } } },
    });
    var byQ = {};
    d.turns.forEach(function (r) { var v = r[I.item]; if (v === 'pass' || v === 'fail') { var q = byQ[r[I.id]] = byQ[r[I.id]] || { pass: 0, fail: 0 }; q[v]++; } });
    var qs = Object.keys(byQ).sort(function (a, b) { return byQ[b].fail - byQ[a].fail || (a < b ? -1 : 1); });
    var qShown = qs.slice(0, 40);
    if (qs.length) chart(chartBox('Pass/fail by question', qs.length > qShown.length ? 'The 40 questions with the most failures, of ' + qs.length + '.' : 'Items of each question (repeats and targets) whose checks all passed, or not.'), {
      type: 'bar',
      data: { labels: qShown, datasets: [{ label: 'pass', data: qShown.map(function (q) { return byQ[q].pass; }), backgroundColor: '#1a7f37' }, { label: 'fail', data: qShown.map(function (q) { return byQ[q].fail; }), backgroundColor: '#cf222e' }] },
      options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } } },
    });
    var checks = d.expectations.byName || [];
    if (checks.length) chart(chartBox('Pass/fail by check'), {
      type: 'bar',
      data: { labels: checks.map(function (c) { return c.name; }), datasets: [{ label: 'pass', data: checks.map(function (c) { return c.passed; }), backgroundColor: '#1a7f37' }, { label: 'fail', data: checks.map(function (c) { return c.failed; }), backgroundColor: '#cf222e' }] },
      options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } } },
    });
    trendChart(d.history, 'Trend over the last ' + new Set(d.history.map(function (h) { return h.runId; })).size + ' runs of ' + d.run.suiteName);
    endCharts();

    heading('Questions');
    if (d.answersCapped) app.appendChild(el('p', { className: 'muted', text: 'Answers are embedded for the first ' + fmtNum(d.answersCapped) + ' questions; questions.csv has them all.' }));
    var qTable = pagedTable([
      { label: 'target', get: function (r) { return r[I.target]; } },
      { label: 'question', get: function (r) { return r[I.id]; } },
      { label: 'repeat', num: true, get: function (r) { return r[I.repeat]; } },
      { label: 'turn', num: true, get: function (r) { return r[I.turn]; } },
      { label: 'state', get: function (r) { return r[I.state] + (r[I.partial] ? ' (partial answer)' : ''); }, cls: function (r) { return r[I.state] === 'completed' ? '' : 'bad'; } },
      { label: 'error', get: function (r) { return r[I.code]; } },
      { label: 'server', num: true, get: function (r) { return r[I.server]; }, fmt: fmtMs },
      { label: 'wall', num: true, get: function (r) { return r[I.wall]; }, fmt: fmtMs },
      { label: 'tokens', num: true, get: function (r) { return r[I.tokens]; }, fmt: function (v) { return fmtNum(v, 0); } },
      { label: 'credits', num: true, get: function (r) { return r[I.credits]; }, fmt: function (v) { return fmtNum(v); } },
      graded ? { label: 'judge', num: true, get: function (r) { return r[I.judge]; }, fmt: function (v) { return fmtNum(v, 2); } } : null,
      graded ? { label: 'citations valid', num: true, get: function (r) { return r[I.cv] + r[I.ci] > 0 ? r[I.cv] + ' of ' + (r[I.cv] + r[I.ci]) : null; } } : null,
      { label: 'checks', get: function (r) { return r[I.verdict]; }, cls: function (r) { return r[I.verdict] === 'fail' ? 'bad' : r[I.verdict] === 'pass' ? 'good' : ''; } },
      { label: 'why', get: function (r) { return r[I.reasons]; } },
    ].filter(Boolean), d.turns, {
      onlyLabel: 'failures only',
      only: function (r) { return r[I.verdict] === 'fail' || r[I.state] !== 'completed'; },
      onRow: function (r) {
        return el('div', { className: 'detail' }, [
          el('h4', { text: r[I.target] + ' / ' + r[I.id] + ' / repeat ' + r[I.repeat] + ' / turn ' + r[I.turn] }),
          r[I.reasons] ? el('p', { className: 'bad', text: r[I.reasons] }) : null,
          r[I.state] !== 'completed' && r[I.code] ? el('p', { className: 'bad', text: r[I.state] + ': ' + r[I.code] + (r[I.message] ? ': ' + r[I.message] : '') }) : null,
          // An answer that came with the error: what was written before it stopped, shown beside it.
          r[I.partial] ? el('p', { className: 'warn', text: 'Partial answer: what was written before the ' + (r[I.state] === 'canceled' ? 'cancel' : 'error') + ' stopped it' }) : null,
          el('div', { className: 'answer', text: r[I.answer] == null ? '(answer not embedded; see questions.csv)' : r[I.answer] || '(no answer)' }),
          r[I.grading] != null ? gradingNode(d.gradings[r[I.grading]]) : null,
        ]);
      },
    });
    qTable.id = 'questions';
    app.appendChild(qTable);
    if (d.searches.length) {
      heading('Searches');
      var S = d.searchColumns, s = function (n) { return S.indexOf(n); };
      app.appendChild(pagedTable(S.map(function (name, i) { return { label: name, num: /count|Ms$/.test(name), get: function (r) { return r[i]; }, fmt: /Ms$/.test(name) ? fmtMs : null, cls: name === 'verdict' ? function (r) { return r[s('verdict')] === 'complete' || r[s('verdict')] === 'limit_hit' ? '' : 'bad'; } : null }; }), d.searches));
    }
  }

  function renderCompare(d) {
    var P = d.pairColumns, c = function (n) { return P.indexOf(n); };
    var I = { kind: c('kind'), pairing: c('pairing'), target: c('target'), id: c('itemId'), repeat: c('repeat'), turn: c('turn'), sb: c('stateBaseline'), sc: c('stateCandidate'), change: c('stateChange'), lb: c('latencyBaseline'), lc: c('latencyCandidate'), cb: c('creditsBaseline'), cc: c('creditsCandidate'), sim: c('answerSimilarity'), jac: c('sourcesJaccard'), eb: c('expectBaseline'), ec: c('expectCandidate'), echange: c('expectChange'), jb: c('judgeBaseline'), jc: c('judgeCandidate'), answer: c('answer') };
    var judged = d.pairs.some(function (r) { return r[I.jb] != null || r[I.jc] != null; });
    header('dsbench compare: ' + runName(d.baseline.run) + ' vs ' + runName(d.candidate.run),
      ['Baseline ' + runName(d.baseline.run) + (d.baseline.target ? ', target ' + d.baseline.target : '') + ' in ' + d.baseline.db + '; candidate ' + runName(d.candidate.run) + (d.candidate.target ? ', target ' + d.candidate.target : '') + ' in ' + d.candidate.db,
       'Suite ' + d.candidate.run.suiteName + '; ' + (d.bootstrap.confidence * 100) + '% intervals from a paired bootstrap (' + d.bootstrap.resamples + ' resamples, seed ' + d.bootstrap.seed + '); generated ' + d.generatedAt],
      d.failed || (d.pairwise && d.pairwise.failedGates.length) ? ['fail', 'FAILED'] : ['pass', 'passed']);
    heading('Gates');
    app.appendChild(staticTable(['gate', 'on', 'result', 'detail'], d.gates.map(function (g) { return [g.name, g.enabled ? 'on' : 'off', g.failed ? 'FAILED' : 'ok', g.detail]; })));
    var o = d.outcomes;
    if (o) {
      heading('Outcomes');
      app.appendChild(el('p', { className: 'muted', text: 'Paired by item; intervals (' + Math.round(d.bootstrap.confidence * 100) + '%) resample questions; p: one-sided sign-flip test over questions. Changes in points.' }));
      var outcomeRows = [
        ['error rate', o.errorRate.n, o.errorRate.clusters, fmtPct(o.errorRate.baseline), fmtPct(o.errorRate.candidate), fmtPts(o.errorRate.change), o.errorRate.low == null ? '' : fmtPts(o.errorRate.low) + ' … ' + fmtPts(o.errorRate.high), fmtP(o.errorRate.test.pUpper) + ' (rise)'],
        ['pass rate', o.passRate.n, o.passRate.clusters, fmtPct(o.passRate.baseline), fmtPct(o.passRate.candidate), fmtPts(o.passRate.change), o.passRate.low == null ? '' : fmtPts(o.passRate.low) + ' … ' + fmtPts(o.passRate.high), fmtP(o.passRate.test.pLower) + ' (drop)'],
        ['pass^' + o.passHatK.k, '', o.passHatK.questions, fmtPct(o.passHatK.baseline), fmtPct(o.passHatK.candidate), fmtPts(o.passHatK.change), '', fmtP(o.passHatK.test.pLower) + ' (drop)'],
      ];
      var outcomesTable = staticTable(['outcome', 'items', 'questions', 'baseline', 'candidate', 'change', 'interval', 'p'], outcomeRows, [0, 1, 1, 1, 1, 1, 1, 1]);
      outcomesTable.id = 'outcomes';
      app.appendChild(outcomesTable);
      if (o.quarantined.clusters) app.appendChild(el('p', { className: 'muted', text: 'Quarantined (judged by no gate): ' + o.quarantined.ids.join(', ') }));
    }
    heading('Charts');
    var metrics = d.metrics.filter(function (m) { return m.relative != null; });
    if (metrics.length) {
      var labels = metrics.map(function (m) { return m.metric + ' (' + m.judgement + ')'; });
      chart(chartBox('Paired change per metric, with its interval', 'Bars: the ' + (d.bootstrap.confidence * 100) + '% interval of the median paired change; dots: the change itself; dashed: the threshold.'), {
        type: 'bar',
        data: { labels: labels, datasets: [
          { type: 'bar', label: 'interval', data: metrics.map(function (m) { return [m.relativeLow * 100, m.relativeHigh * 100]; }), backgroundColor: metrics.map(function (m) { return m.judgement === 'regressed' ? '#cf222e90' : m.judgement === 'improved' ? '#1a7f3790' : '#59636e60'; }) },
          { type: 'scatter', label: 'median change', data: metrics.map(function (m, i) { return { x: m.relative * 100, y: labels[i] }; }), backgroundColor: '#1f2328', pointRadius: 5 },
          { type: 'scatter', label: 'threshold', data: metrics.filter(function (m) { return m.threshold != null; }).map(function (m) { return { x: m.threshold * 100, y: labels[metrics.indexOf(m)] }; }), backgroundColor: '#9a6700', pointStyle: 'line', pointRadius: 12, borderColor: '#9a6700', borderWidth: 3 },
        ] },
        options: { indexAxis: 'y', scales: { x: { title: { display: true, text: 'change, % of the baseline median' } }, y: { type: 'category', labels: labels } } },
      });
    }
    var lat = histogram([
      { label: 'baseline', values: d.pairs.filter(function (r) { return r[I.kind] === 'question'; }).map(function (r) { return r[I.lb]; }) },
      { label: 'candidate', values: d.pairs.filter(function (r) { return r[I.kind] === 'question'; }).map(function (r) { return r[I.lc]; }) },
    ], 30);
    if (lat) chart(chartBox('Question latency, baseline and candidate', 'Server time where both sides have it, else wall time.'), { type: 'bar', data: lat, options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'questions' } } } } });
    var sc = d.stateChanges;
    chart(chartBox('What changed'), {
      type: 'bar',
      data: { labels: ['same', 'new errors', 'fixed', 'other changes', 'in progress', 'new check failures', 'fixed checks'], datasets: [{ label: 'pairs', data: [sc.same, sc.new_error, sc.fixed, sc.changed, sc.in_progress, d.newFailures, d.fixedFailures], backgroundColor: ['#59636e', '#cf222e', '#1a7f37', '#9a6700', '#0891b2', '#cf222e', '#1a7f37'] }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
    });
    var pw = d.pairwise && d.pairwise.result;
    if (pw) chart(chartBox("The judge's pairwise verdicts", 'Each pair judged twice with the order swapped: a win or a loss needs both verdicts to agree; undecided pairs (no two verdicts) are left out of the rates.'), {
      type: 'bar',
      data: { labels: ['candidate wins', 'ties', 'candidate loses', 'undecided'], datasets: [{ label: 'pairs', data: [pw.wins, pw.ties, pw.losses, pw.undecided], backgroundColor: ['#1a7f37', '#59636e', '#cf222e', '#9a6700'] }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
    });
    endCharts();
    if (pw) {
      heading('Judge: pairwise comparison');
      var rate = function (r) { return r ? fmtPct(r.value) + ' (' + fmtPct(r.low) + ' … ' + fmtPct(r.high) + ')' : 'no decided pair'; };
      var cv = pw.citationValidity;
      var pwTable = staticTable(['measure', 'value'], [
        ['pairs judged', pw.pairs + ' (' + pw.undecided + ' undecided)'],
        ['candidate wins', pw.wins + ', ' + rate(pw.winRate)],
        ['ties', pw.ties + ', ' + rate(pw.tieRate)],
        ['candidate loses', pw.losses + ', ' + rate(pw.lossRate)],
        ['judge score change', pw.scoreDelta ? fmtSigned(pw.scoreDelta.mean) + ' over ' + pw.scoreDelta.pairs + ' turns graded in both runs' : 'no turn graded in both runs'],
        ['citation validity', (cv.baseline == null ? '–' : fmtPct(cv.baseline)) + ' → ' + (cv.candidate == null ? '–' : fmtPct(cv.candidate)) + (cv.delta == null ? '' : ' (' + fmtSigned(cv.delta * 100) + ' points)')],
        ['judge calls', pw.judgeCalls + ' (' + pw.cacheHits + ' from the cache)'],
      ]);
      pwTable.id = 'pairwise';
      app.appendChild(pwTable);
      d.pairwise.failedGates.forEach(function (g) { app.appendChild(el('p', { className: 'bad', text: 'GATE FAILED: ' + g })); });
      pw.problems.forEach(function (p) { app.appendChild(el('p', { className: 'muted', text: p })); });
    }
    heading('Metrics');
    app.appendChild(staticTable(['metric', 'pairs', 'questions', 'baseline median', 'candidate median', 'median change', 'interval', 'relative', 'relative interval', 'threshold', 'detectable', 'verdict'],
      d.metrics.map(function (m) { var f = m.unit === 'ms' ? fmtMs : function (v) { return fmtNum(v); }; return [m.metric, m.n, m.clusters, f(m.baselineMedian), f(m.candidateMedian), fmtSigned(m.delta, m.unit), m.deltaLow == null ? '' : fmtNum(m.deltaLow) + ' … ' + fmtNum(m.deltaHigh), fmtPct(m.relative), m.relativeLow == null ? '' : fmtPct(m.relativeLow) + ' … ' + fmtPct(m.relativeHigh), m.threshold == null ? 'off' : fmtPct(m.threshold), m.detectable == null ? '' : '+' + fmtPct(m.detectable), m.judgement]; }),
      [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]));

    heading('Answers side by side');
    if (d.answersCapped) app.appendChild(el('p', { className: 'muted', text: 'Answers are embedded for ' + fmtNum(d.answersCapped) + ' question pairs (changed pairs first); compare.csv lists every pair.' }));
    var sideBySide = function (r) {
      var a = r[I.answer] ? d.answers[r[I.answer] - 1] : null;
      var box = el('div', { className: 'detail', id: 'side-by-side' });
      box.appendChild(el('h4', { text: r[I.id] + ' / repeat ' + r[I.repeat] + (r[I.turn] == null ? '' : ' / turn ' + r[I.turn]) + ': ' + (r[I.sb] || '-') + ' → ' + (r[I.sc] || '-') + (r[I.sim] == null ? '' : '; answer similarity ' + fmtNum(r[I.sim], 3)) + (r[I.jac] == null ? '' : ', sources ' + fmtNum(r[I.jac], 3)) }));
      if (!a) { box.appendChild(el('p', { className: 'muted', text: r[I.kind] === 'search' ? 'A search: counts and verdicts are in the table.' : 'Answers not embedded for this pair.' })); return box; }
      if (a.question) box.appendChild(el('p', { text: 'Q: ' + a.question }));
      var parts = diff(a.baseline || '', a.candidate || '');
      var left = parts ? answerNode(parts[0], 'del') : el('div', { className: 'answer', text: a.baseline || '' });
      var right = parts ? answerNode(parts[1], 'ins') : el('div', { className: 'answer', text: a.candidate || '' });
      box.appendChild(el('div', { className: 'sides' }, [
        el('div', { className: 'side baseline' }, [el('h4', { text: 'Baseline, ' + runName(d.baseline.run) + ' (' + (r[I.sb] || 'absent') + ', checks ' + (r[I.eb] || '-') + ')' }), left, a.reasonsBaseline ? el('p', { className: 'bad', text: a.reasonsBaseline }) : null, sideGrade(a.gradeBaseline), el('h4', { text: 'Sources' }), listNode(a.sourcesBaseline)]),
        el('div', { className: 'side candidate' }, [el('h4', { text: 'Candidate, ' + runName(d.candidate.run) + ' (' + (r[I.sc] || 'absent') + ', checks ' + (r[I.ec] || '-') + ')' }), right, a.reasonsCandidate ? el('p', { className: 'bad', text: a.reasonsCandidate }) : null, sideGrade(a.gradeCandidate), el('h4', { text: 'Sources' }), listNode(a.sourcesCandidate)]),
      ]));
      return box;
    };
    var table = pagedTable([
      { label: 'kind', get: function (r) { return r[I.kind]; } },
      { label: 'target', get: function (r) { return r[I.target]; } },
      { label: 'item', get: function (r) { return r[I.id]; } },
      { label: 'repeat', num: true, get: function (r) { return r[I.repeat]; } },
      { label: 'turn', num: true, get: function (r) { return r[I.turn]; } },
      { label: 'pairing', get: function (r) { return r[I.pairing]; } },
      { label: 'baseline', get: function (r) { return r[I.sb]; } },
      { label: 'candidate', get: function (r) { return r[I.sc]; } },
      { label: 'change', get: function (r) { return r[I.change]; }, cls: function (r) { return r[I.change] === 'new_error' ? 'bad' : r[I.change] === 'fixed' ? 'good' : ''; } },
      { label: 'latency b', num: true, get: function (r) { return r[I.lb]; }, fmt: fmtMs },
      { label: 'latency c', num: true, get: function (r) { return r[I.lc]; }, fmt: fmtMs },
      { label: 'credits b', num: true, get: function (r) { return r[I.cb]; } },
      { label: 'credits c', num: true, get: function (r) { return r[I.cc]; } },
      { label: 'similarity', num: true, get: function (r) { return r[I.sim]; }, fmt: function (v) { return fmtNum(v, 3); } },
      judged ? { label: 'judge b', num: true, get: function (r) { return r[I.jb]; }, fmt: function (v) { return fmtNum(v, 2); } } : null,
      judged ? { label: 'judge c', num: true, get: function (r) { return r[I.jc]; }, fmt: function (v) { return fmtNum(v, 2); } } : null,
      { label: 'checks', get: function (r) { return r[I.echange]; }, cls: function (r) { return r[I.echange] === 'new_failure' ? 'bad' : r[I.echange] === 'fixed' ? 'good' : ''; } },
    ].filter(Boolean), d.pairs, {
      onlyLabel: 'changes only',
      only: function (r) { return (r[I.change] && r[I.change] !== 'same') || (r[I.echange] && r[I.echange] !== 'same') || r[I.pairing] !== 'paired'; },
      onRow: sideBySide,
    });
    table.id = 'pairs';
    app.appendChild(table);
    var first = d.pairs.filter(function (r) { return r[I.answer]; })[0];
    if (first) table.show(first);
  }

  function renderHistory(d) {
    header('dsbench history: suite ' + d.suite, ['The last ' + new Set(d.rows.map(function (r) { return r.runId; })).size + ' runs in ' + d.db + ', oldest first; generated ' + d.generatedAt]);
    heading('Charts');
    trendChart(d.rows, 'Latency and pass rate per run');
    var runs = []; d.rows.forEach(function (h) { if (runs.indexOf(h.runId) < 0) runs.push(h.runId); });
    var targets = []; d.rows.forEach(function (h) { if (targets.indexOf(h.target) < 0) targets.push(h.target); });
    chart(chartBox('Credits per run', d.rows.every(function (r) { return r.creditsSum == null; }) ? 'Not measured: the versioned API reports no credits.' : null), {
      type: 'bar',
      data: { labels: runs.map(function (r) { return 'run ' + r; }), datasets: targets.map(function (t, j) { return { label: t, backgroundColor: COLORS[j % COLORS.length], data: runs.map(function (r) { var h = d.rows.filter(function (x) { return x.runId === r && x.target === t; })[0]; return h ? h.creditsSum : null; }) }; }) },
      options: { scales: { y: { beginAtZero: true } } },
    });
    chart(chartBox('Questions in error per run', 'Items that ended in an error the suite did not expect; an expected error is no failure.'), {
      type: 'bar',
      data: { labels: runs.map(function (r) { return 'run ' + r; }), datasets: targets.map(function (t, j) { return { label: t, backgroundColor: COLORS[(j + 1) % COLORS.length], data: runs.map(function (r) { var h = d.rows.filter(function (x) { return x.runId === r && x.target === t; })[0]; return h ? h.failed : null; }) }; }) },
      options: { scales: { y: { beginAtZero: true } } },
    });
    endCharts();
    heading('Runs');
    app.appendChild(staticTable(['run', 'label', 'started', 'status', 'target', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50', 'server p90', 'credits'],
      d.rows.map(function (r) { return [r.runId, r.label, r.startedAt, r.status, r.target, r.items, r.completed, r.failed + (r.expectedErrors > 0 ? ' (+' + r.expectedErrors + ' expected)' : ''), r.questions, fmtPct(r.passRate), fmtMs(r.serverMsP50), fmtMs(r.serverMsP90), fmtCredits(r.creditsSum)]; }), [1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]));
    if (d.grid && d.grid.rows.length) {
      heading('Questions night by night');
      app.appendChild(el('p', { className: 'muted', text: 'Repeats whose checks passed, of those checked, per run. Flaky: among repeats that did not end in an error, both a pass and a fail in these runs. Quarantined questions are judged by no compare gate.' }));
      var cellClass = function (c) { return !c || !c.checked ? 'muted' : c.passed === c.checked ? 'good' : c.passed === 0 ? 'bad' : ''; };
      var gridTable = el('table', { id: 'question-grid' }, [
        el('thead', {}, [el('tr', {}, ['question', 'mark'].concat(d.grid.runs.map(function (r) { return 'run ' + r.id; })).map(function (h, i) { return el('th', { className: i > 1 ? 'num' : '', text: h }); }))]),
        el('tbody', {}, d.grid.rows.map(function (row) {
          var mark = [row.flaky ? 'flaky' : '', row.quarantined ? 'quarantined' : ''].filter(Boolean).join(', ');
          return el('tr', {}, [el('td', { text: (d.grid.rows.some(function (x) { return x.target !== row.target; }) ? row.target + '/' : '') + row.id }), el('td', { className: row.flaky ? 'bad' : 'muted', text: mark })].concat(row.cells.map(function (c) {
            return el('td', { className: 'num ' + cellClass(c), text: !c || !c.checked ? '–' : c.passed + '/' + c.checked + (c.errored ? ' E' + c.errored : '') });
          })));
        })),
      ]);
      app.appendChild(gridTable);
    }
  }

  try {
    if (data.kind === 'report') renderReport(data);
    else if (data.kind === 'compare') renderCompare(data);
    else renderHistory(data);
    document.body.setAttribute('data-charts', String(charts.length));
    document.body.setAttribute('data-ready', 'true');
    if (window.performance && performance.mark) performance.mark('dsbench-ready');
  } catch (e) {
    app.appendChild(el('p', { className: 'bad', text: 'This report could not be drawn: ' + e }));
    throw e;
  }
})();
`;
