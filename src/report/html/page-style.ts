// The pages' style sheet, inlined in each page's <style>.

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
