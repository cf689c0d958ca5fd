/** The pages' one stylesheet, served from /approvals/app.css so the CSP needs no inline styles. */
export const stylesheet = `
:root {
  --ink: #1d2330; --muted: #5d6678; --line: #dde1e8; --paper: #f6f7f9; --card: #ffffff;
  --accent: #2b59c3; --allow: #1f7a4d; --deny: #b3261e; --warn: #8a5a00;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--paper); line-height: 1.45;
}
* { box-sizing: border-box; }
body { margin: 0; }
header.bar {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem;
  padding: 0.75rem 1.5rem; background: var(--ink); color: #fff;
}
header.bar a { color: #fff; text-decoration: none; font-weight: 600; }
header.bar nav { display: flex; gap: 1.25rem; }
header.bar .who { display: flex; align-items: center; gap: 0.75rem; font-size: 0.9rem; }
header.bar form { margin: 0; }
header.bar button { background: transparent; color: #fff; border: 1px solid #ffffff66; }
main { max-width: 1040px; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; display: flex; align-items: center; gap: 0.6rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
a { color: var(--accent); }
.card {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem;
}
.card > :first-child { margin-top: 0; }
table { width: 100%; border-collapse: collapse; background: var(--card); }
th, td { text-align: left; padding: 0.6rem 0.75rem; border-bottom: 1px solid var(--line); }
td { font-size: 0.92rem; }
td code { white-space: nowrap; }
th { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.list { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.empty { color: var(--muted); padding: 1.5rem; text-align: center; background: var(--card); }
.meta { color: var(--muted); font-size: 0.85rem; }
.live::before {
  content: ""; display: inline-block; width: 0.5rem; height: 0.5rem; margin-right: 0.4rem;
  border-radius: 50%; background: var(--allow); vertical-align: middle;
}
.live.offline::before { background: var(--warn); }
dl { display: grid; grid-template-columns: 9.5rem 1fr; gap: 0.4rem 1.25rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9rem; }
pre {
  background: #f0f2f5; border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem;
  overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0;
}
.badge {
  display: inline-block; padding: 0.1rem 0.5rem; border-radius: 999px; font-size: 0.8rem;
  border: 1px solid var(--line); background: #eef1f6;
}
.badge.read_only, .badge.pending { background: #fff4d6; border-color: #f0d890; }
.badge.approved { background: #ddf3e6; border-color: #a6d9b9; }
.badge.denied, .badge.expired, .badge.failed_closed { background: #fbe3e1; border-color: #efb3ad; }
.notice { border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.notice.ok { background: #ddf3e6; border-color: #a6d9b9; }
.notice.error { background: #fbe3e1; border-color: #efb3ad; }
.notice.info { background: #e7eefb; border-color: #b7c8ee; }
form.decide { display: grid; gap: 0.75rem; margin-top: 1rem; }
form.decide .actions { display: flex; gap: 0.75rem; }
fieldset.grant { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; }
fieldset.grant legend { font-weight: 600; padding: 0 0.3rem; }
.scope-offer { border-top: 1px solid var(--line); padding-top: 0.6rem; margin-top: 0.6rem; }
.scope-offer dl { margin-top: 0.4rem; }
label { font-weight: 600; font-size: 0.9rem; }
input[type="password"], input[type="text"], input[type="number"], textarea {
  width: 100%; padding: 0.55rem 0.7rem; border: 1px solid var(--line); border-radius: 6px;
  font: inherit; background: #fff;
}
textarea { min-height: 4.5rem; resize: vertical; }
button {
  font: inherit; font-weight: 600; padding: 0.5rem 1.1rem; border-radius: 6px; cursor: pointer;
  border: 1px solid transparent; background: var(--accent); color: #fff;
}
button.approve { background: var(--allow); }
button.deny { background: var(--deny); }
td .actions { display: flex; gap: 0.5rem; align-items: center; }
form.inline { margin: 0; }
a.button {
  display: inline-block; font-weight: 600; padding: 0.5rem 1.1rem; border-radius: 6px;
  background: var(--accent); color: #fff; text-decoration: none;
}
.badge.active { background: #ddf3e6; border-color: #a6d9b9; }
.badge.needs_reauthorization, .badge.awaiting_authorization {
  background: #fff4d6; border-color: #f0d890;
}
nav.tabs { display: flex; gap: 0.25rem; border-bottom: 1px solid var(--line); margin-bottom: 0.75rem; }
nav.tabs a {
  padding: 0.5rem 0.9rem; text-decoration: none; border: 1px solid transparent;
  border-bottom: none; border-radius: 6px 6px 0 0; color: var(--ink);
}
nav.tabs a[aria-current="page"] { background: var(--card); border-color: var(--line); font-weight: 600; }
.run-group { margin: 1.25rem 0; }
.run-heading {
  display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.5rem; font-size: 1rem;
  margin: 0 0 0.4rem;
}
td.what code { white-space: pre-wrap; overflow-wrap: anywhere; }
nav.pager { display: flex; gap: 1rem; align-items: center; justify-content: center; margin: 1rem 0; }
a:focus-visible, button:focus-visible, summary:focus-visible, textarea:focus-visible,
select:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
@media (max-width: 640px) {
  main { margin: 1rem auto; padding: 0 0.75rem; }
  header.bar { padding: 0.6rem 0.75rem; flex-wrap: wrap; }
  .list { overflow-x: auto; }
  table, thead, tbody, tr, th, td { display: block; }
  thead { display: none; }
  tr { border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
  td { border: none; padding: 0.2rem 0.75rem; }
  dl { grid-template-columns: 1fr; }
  h1, dt { overflow-wrap: anywhere; flex-wrap: wrap; min-width: 0; }
  form.decide .actions { flex-direction: column; }
  form.decide button { width: 100%; padding: 0.8rem; }
  dt { margin-top: 0.4rem; }
}
.card + .card { margin-top: 1rem; }
h3 { font-size: 0.95rem; margin: 1rem 0 0.4rem; }
.call-line code { font-size: 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.diff .line { display: block; }
pre.diff .removed { background: #fbe3e1; color: #7a1a14; }
pre.diff .added { background: #ddf3e6; color: #14532d; }
ol.commands { margin: 0; padding-left: 1.5rem; display: grid; gap: 0.3rem; }
ol.commands .note {
  display: inline-block; margin-left: 0.5rem; font-size: 0.8rem; color: var(--warn);
}
p.uncertain { color: var(--warn); font-size: 0.9rem; margin: 0.4rem 0; }
ol.commands .unknown { color: var(--warn); font-style: italic; }
details > summary { cursor: pointer; color: var(--accent); margin: 0.4rem 0; }
dl.arguments .title { color: var(--muted); font-size: 0.85rem; }
kbd {
  font-family: inherit; font-size: 0.8rem; border: 1px solid var(--line); border-radius: 4px;
  padding: 0 0.3rem; background: #fff;
}
.login { max-width: 28rem; margin: 4rem auto; }
.login form { display: grid; gap: 0.75rem; }
`;
