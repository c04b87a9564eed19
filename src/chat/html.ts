// The chat's webview page: its options, its HTML with a strict Content Security Policy (scripts only with this
// page's nonce, styles, fonts and images only from the extension), and the translations the webview is given.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** The page that loads the chat's webview bundle, titled `title`. */
export function chatHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', name)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>${escapeHtml(title)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The extension's translations for the webview, when VS Code loaded a bundle (not in English): strings only, so the state message stays valid. */
export function translations(): { l10n?: Record<string, string> } {
  const bundle: Readonly<Record<string, unknown>> | undefined = vscode.l10n.bundle;
  if (!bundle) return {};
  return { l10n: Object.fromEntries(Object.entries(bundle).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) };
}
