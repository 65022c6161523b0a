// The webview's HTML: the built webview-ui bundle under a strict Content-Security-Policy.

export interface HtmlOptions {
  /** webview.cspSource */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

export function webviewHtml(o: HtmlOptions): string {
  const csp = [
    "default-src 'none'",
    // cspSource too: the bundle loads its lazy chunks (diagrams…) with import().
    `script-src 'nonce-${o.nonce}' ${o.cspSource}`,
    `style-src ${o.cspSource} 'unsafe-inline'`,
    `img-src ${o.cspSource} data: https:`,
    `font-src ${o.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${o.styleUri}">
<title>Cairn</title>
</head>
<body>
<div id="root"></div>
<script type="module" nonce="${o.nonce}" src="${o.scriptUri}"></script>
</body>
</html>`;
}

export function makeNonce(random: (n: number) => Buffer): string {
  return random(18).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}
