// The one stylesheet of the pages for people, served at /assets/site.css (a file, so the
// Content-Security-Policy needs no inline style). Readable on a phone; no external fonts.
export const SITE_CSS = `
:root{--ink:#1d1f21;--muted:#5b6168;--line:#d5d9de;--bg:#fff;--soft:#f4f6f8;--accent:#0b57a4;--ok:#17663a;--warn:#8a5300;--bad:#a3261b}
*{box-sizing:border-box}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg);margin:0}
header.site{border-bottom:1px solid var(--line);background:var(--soft)}
header.site .bar{max-width:56rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header.site .brand{font-weight:700;color:var(--ink);text-decoration:none}
header.site nav a{margin-right:1rem}
header.site form.account{display:flex;gap:.5rem;align-items:center;margin:0}
header.site form.account button{padding:.2rem .6rem;font-size:.875rem}
main{max-width:56rem;margin:0 auto;padding:1rem}
footer.site{max-width:56rem;margin:2rem auto;padding:0 1rem;color:var(--muted);font-size:.875rem}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f2b600;outline-offset:2px}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
pre,textarea{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
code{background:var(--soft);padding:0 .2rem}
label{font-weight:600}
input,select,textarea,button{font-size:1rem;padding:.4rem .5rem;border:1px solid #8c949c;border-radius:4px;max-width:100%}
button,a.button{background:var(--accent);color:#fff;border:1px solid var(--accent);border-radius:4px;cursor:pointer}
a.button{display:inline-block;padding:.4rem .9rem;text-decoration:none}
textarea{width:100%}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:.5rem 0 1rem}
form.search .q{flex:1 1 18rem}
form.search .q input{width:100%}
form.search div{display:flex;flex-direction:column}
.hint{color:var(--muted);font-size:.875rem}
ol.results{padding-left:1.5rem}
ol.results li{margin:0 0 1.25rem}
.result-title{font-size:1.05rem;font-weight:600}
.meta{color:var(--muted);font-size:.875rem}
.pager{display:flex;gap:1rem;justify-content:space-between;margin:1rem 0}
.error{border-left:4px solid var(--bad);background:#fdf0ef;padding:.5rem .75rem;margin:1rem 0}
.notice{border-left:4px solid var(--warn);background:#fdf6e9;padding:.5rem .75rem;margin:.5rem 0}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
td,th{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
.scroll{overflow-x:auto}
.verdict{font-weight:700;white-space:nowrap}
.verdict-verified{color:var(--ok)}.verdict-differs{color:var(--warn)}.verdict-not_found,.verdict-unreadable{color:var(--bad)}.verdict-unchecked{color:var(--muted)}
.summary span{margin-right:1rem}
.progress-line{margin:.25rem 0}
.progress-line:not(:last-of-type){display:none}
progress{width:100%;height:1.1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:.5rem 0}
math{font-family:"Cambria Math","STIX Two Math","Latin Modern Math","Noto Sans Math",math;font-size:1.05em}
math[display=block]{display:block math;margin:.5rem 0;overflow-x:auto;overflow-y:hidden}
math:not([display=block]){display:inline-block;max-width:100%;overflow-x:auto;overflow-y:hidden;vertical-align:middle}
.sc{font-variant:small-caps}
sub,sup{line-height:0}
ol.results p.abstract{margin:.25rem 0}
details.abstract{margin:.25rem 0}
details.abstract summary{cursor:pointer}
details.abstract[open] .more{display:none}
details.abstract .more{color:var(--accent);font-size:.875rem}
details.abstract p{margin:.25rem 0 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){body{font-size:15px}h1{font-size:1.35rem}dl.facts{grid-template-columns:1fr}}
`;

/** The site's icon (served at /favicon.svg): a page with a bookmark, in the accent colour. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="5" y="2" width="22" height="28" rx="3" fill="#0b57a4"/>' +
  '<path d="M10 9h12M10 14h12M10 19h8" stroke="#fff" stroke-width="2"/><path d="M20 2v9l3-2 3 2V2z" fill="#f2b600"/></svg>';
