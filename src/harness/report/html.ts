// One self-contained HTML page: inline CSS and script, the report's data embedded as JSON, no
// network and no external asset, so the file can be mailed, archived in CI or opened offline.

/** Text as HTML text or an attribute value. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** JSON inside a <script> element: nothing in it may close the element. */
export function scriptJson(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const BASE_CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:18px 22px 220px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:26px 0 6px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:14px;margin:14px 0 4px}
p.lead{margin:4px 0 12px;color:#444;max-width:900px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:6px 0 12px;background:#fff}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right}
th:first-child,td:first-child,th.l,td.l{text-align:left}
th{background:#f0f0f0;font-weight:600}
.words{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px 12px;margin:10px 0;max-width:980px}
.words dt{font-weight:600;display:inline}
.words dd{display:inline;margin:0}
.words div{margin:2px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;margin:6px 0 10px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:13px;height:13px;border-radius:2px;border:1px solid rgba(0,0,0,.25)}
`;

export interface Page {
  title: string;
  /** The page's own CSS, after the base. */
  css?: string;
  body: string;
  /** Embedded as <script type="application/json" id="killpoint-data">. */
  data: unknown;
  /** The page's own script, run once the page is loaded. */
  script?: string;
}

export function page(p: Page): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(p.title)}</title>
<style>${BASE_CSS}${p.css ?? ''}</style>
</head>
<body>
<main>
${p.body}
</main>
<script type="application/json" id="killpoint-data">${scriptJson(p.data)}</script>
${p.script ? `<script>${p.script}</script>` : ''}
</body>
</html>
`;
}
