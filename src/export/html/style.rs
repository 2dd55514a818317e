//! The page's inline style sheet, for the screen and for print.

pub const CSS: &str = "
:root { --ink: #1f2328; --muted: #59636e; --faint: #aab2bb; --line: #d1d9e0; --rule: #e8ecf0;
  --head: #f6f8fa; --accent: #0b5cad; --bad: #b42318; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 32px 36px 40px; }
h1 { font-size: 26px; font-weight: 650; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; font-weight: 650; margin: 36px 0 12px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
.sub { color: var(--muted); margin: 0; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0; max-width: 60em; }
.muted { color: var(--muted); font-weight: normal; }
.callout { display: inline-block; margin: 10px 0 0; padding: 8px 14px; border-radius: 6px;
  background: var(--head); border: 1px solid var(--line); }
a { color: var(--accent); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 9px; }
thead th { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase;
  letter-spacing: .02em; vertical-align: bottom; background: var(--head); }
.bot { text-align: left; font-weight: 600; white-space: nowrap; }
.bot.long { white-space: normal; min-width: 12em; max-width: 18em; overflow-wrap: anywhere; }
.config th { text-align: left; font-weight: 600; color: var(--muted); padding: 3px 24px 3px 0;
  white-space: nowrap; vertical-align: top; }
.config td { padding: 3px 0; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular,
  Menlo, Consolas, monospace; font-size: 13px; }
.standings th, .standings td { text-align: right; white-space: nowrap; border-bottom: 1px solid var(--rule); }
.standings thead th { border-bottom: 1px solid var(--line); }
.standings .bot { text-align: left; }
.standings .bot.long { white-space: normal; }
.standings .rank { color: var(--muted); }
.standings .points { font-weight: 700; }
.standings tbody tr:nth-child(even) { background: #fbfcfd; }
.zero { color: var(--faint); }
.fail { color: var(--bad); font-weight: 600; }
.fail a { color: inherit; }
.elo { font-weight: 600; }
.elo .range { display: block; font-size: 11px; font-weight: normal; color: var(--muted); }
.elo.unbounded { text-align: left; font-weight: normal; font-style: italic; color: var(--muted); }
.standings .interval { padding: 2px 8px; }
svg { display: block; }
svg text { font: 10px system-ui, sans-serif; fill: #59636e; }
svg .grid { stroke: #e3e7eb; stroke-width: 1; }
svg .ci { stroke: #0b5cad; stroke-width: 2.5; stroke-linecap: round; }
svg .cap { stroke: #0b5cad; stroke-width: 1.5; }
svg .est { fill: #fff; stroke: #0b5cad; stroke-width: 2; }
.legend { display: flex; align-items: center; flex-wrap: wrap; gap: 18px; margin: 10px 0 14px;
  font-size: 12px; color: var(--muted); }
.legend svg { margin-left: -15px; }
.key { display: inline-flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 20px; height: 14px; border-radius: 2px; }
.heat { border-collapse: separate; border-spacing: 3px; }
.heat thead th { background: none; }
.heat th.col { text-align: center; }
.heat th.bot { padding-left: 0; }
.heat .idx { display: inline-block; min-width: 1.6em; color: var(--muted); font-weight: normal; }
.hm { width: 4em; min-width: 4em; height: 3.1em; padding: 3px 4px; text-align: center;
  vertical-align: middle; border-radius: 4px; line-height: 1.15; color: #1f2328; }
.hm.light { color: #fff; }
.hm .pct { display: block; font-weight: 650; font-size: 14px; }
.hm .pts { display: block; font-size: 11px; opacity: .8; }
.self, .swatch.self { background: repeating-linear-gradient(135deg, #d5dae0 0 2px, #f3f5f7 2px 7px); }
.none, .swatch.none { background: #fff; border: 1px dashed #aab2bb; color: var(--faint); }
.heat td.total { text-align: right; white-space: nowrap; padding-left: 14px; }
.heat th.total { text-align: right; padding-left: 14px; white-space: nowrap; }
.heat.dense { border-spacing: 2px; }
.heat.dense .hm { width: 2.9em; min-width: 2.9em; height: 2.6em; padding: 2px; }
.heat.dense .hm .pct { font-size: 12px; }
.heat.dense .hm .pts { font-size: 10px; }
.failures th, .failures td { text-align: right; border-bottom: 1px solid var(--rule); vertical-align: top; }
.failures thead th { border-bottom: 1px solid var(--line); }
.failures .bot, .failures .games { text-align: left; }
.failures td.games { font-size: 13px; line-height: 1.7; }
.ids .why { display: inline-block; min-width: 5.5em; color: var(--muted); }
.ids a, .ids .gid { display: inline-block; min-width: 2.2em; padding: 0 5px; margin: 1px 0;
  border: 1px solid var(--line); border-radius: 10px; text-align: center; text-decoration: none;
  font-variant-numeric: tabular-nums; line-height: 1.5; }
.ids a:hover { background: var(--head); }
.ids .more { color: var(--muted); font-style: italic; }
.grades th, .grades td { text-align: right; border-bottom: 1px solid var(--rule); vertical-align: top; }
.grades thead th { border-bottom: 1px solid var(--line); }
.grades .bot, .grades .reason { text-align: left; }
.grades td.reason { color: var(--muted); font-size: 13px; max-width: 40em; }
.grades .grade { text-align: center; font-weight: 700; text-transform: uppercase; font-size: 12px; }
.grades .grade.pass { color: #1a7f37; }
.grades .grade.fail { color: var(--bad); }
.grades .pct, .grades .wdl { display: block; font-size: 11px; color: var(--muted); }
.grades td.reason p.why { margin: 0; }
.grades ul.faults { margin: 4px 0 0; padding-left: 1.2em; color: var(--ink, inherit); }
.grades ul.faults li { margin: 2px 0; }
.grades .cause { font-weight: 600; }
.grades pre.traceback { margin: 2px 0 4px; padding: 4px 6px; font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(127,127,127,.08); border-left: 2px solid var(--bad); }
.games th, .games td { text-align: right; border-bottom: 1px solid var(--rule); white-space: nowrap; }
.games .bot, .games .result, .games .ending { text-align: left; }
.games td.ids a, .games td.ids .gid { min-width: 2.8em; }
details > summary { cursor: pointer; color: var(--muted); }
details > summary h2 { display: inline-block; border: none; margin: 0; padding: 0; color: var(--ink); }
#configuration { margin-top: 36px; border-top: 1px solid var(--line); padding-top: 12px; }
#viewer { width: min(760px, 96vw); max-height: 94vh; border: 1px solid var(--line); border-radius: 8px;
  padding: 16px 20px; box-shadow: 0 10px 40px rgba(0,0,0,.25); }
#viewer::backdrop { background: rgba(31,35,40,.45); }
.v-head { display: flex; align-items: center; justify-content: space-between; gap: 12px; }
.v-head h2 { margin: 0; border: none; padding: 0; font-size: 17px; overflow-wrap: anywhere; }
.v-controls { display: flex; align-items: center; gap: 6px; margin: 10px 0 4px; }
.v-controls button, #v-close { font-size: 17px; line-height: 1.1; min-width: 2.4em; padding: 3px 8px; border-radius: 6px;
  border: 1px solid var(--line); background: var(--head); cursor: pointer; }
.v-controls button:disabled { opacity: .4; cursor: default; }
#v-step { flex: 1; }
#v-pos { min-width: 6em; text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
#v-status { min-height: 2.9em; margin: 6px 0; font-size: 14px; }
#v-result { color: var(--muted); font-size: 13px; }
.board { display: grid; gap: 0; width: min(100%, 560px, 60vh); margin: 0 auto; font-size: 11px; }
.board .coord { display: flex; align-items: center; justify-content: center; color: var(--muted); }
.board .cell { position: relative; aspect-ratio: 1; display: flex; align-items: center; justify-content: center; }
.board.othello .cell { background: #2e8b57; border: 1px solid #1d5e3a; }
.board.gomoku .cell { background: #e3c07b; border: 1px solid #a5823f; }
.board .cell.last { box-shadow: inset 0 0 0 2px #d4a017; }
.stone { width: 82%; height: 82%; border-radius: 50%; }
.stone.black { background: radial-gradient(circle at 35% 30%, #555, #111 70%); }
.stone.white { background: radial-gradient(circle at 35% 30%, #fff, #cfd3d6 75%); border: 1px solid #8a8f94; }
.v-table { margin: 0 auto; }
.v-table th, .v-table td { text-align: right; border-bottom: 1px solid var(--rule); padding: 3px 10px; }
.v-table.numeron td:nth-child(2), .v-table.numeron th:nth-child(2) { text-align: left; }
.v-table tr.now { background: #fff6d6; }
.v-table tr.hit td { font-weight: 650; }
.v-table tr.bad td { color: var(--bad); }
.v-table tr.secret td { color: var(--muted); }
#v-body { max-height: 66vh; overflow: auto; }
footer { margin-top: 40px; color: var(--faint); font-size: 12px; }
@page { margin: 14mm 12mm; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  h1 { font-size: 18pt; }
  h2 { font-size: 13pt; margin-top: 20pt; break-after: avoid; page-break-after: avoid; }
  .scroll { overflow: visible; }
  thead { display: table-header-group; }
  tr, .heat, .legend, .callout, #crosstable { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .standings tbody tr:nth-child(even) { background: none; }
  .callout { background: none; }
  footer, #viewer, #games { display: none; }
  th, td { padding: 4px 6px; }
  svg.bar, svg.axis { width: 176px; height: auto; }
  .hm { width: 3.2em; min-width: 3.2em; height: 2.8em; }
  .heat.dense .hm { width: 2.5em; min-width: 2.5em; height: 2.4em; }
  .heat td.total, .heat th.total { padding-left: 8px; }
}
";
