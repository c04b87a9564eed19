// `@url`: the user names a page (the clipboard's URL is offered), confirms, and it is fetched from the machine the
// extension runs on (the remote one in a remote window) with VS Code's proxy settings, in a notification that can be
// cancelled; what it says becomes the attachment's text (webPage.ts, its HTML converted apart by pageText.ts).
// Nothing is fetched before the user confirms, and the agent can never ask for it.
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { MAX_MENTION_BYTES } from './contextText';
import { textSize, type NewAttachment } from './prompt';
import { htmlToMarkdownApart } from './pageText';
import { fetchPage, refusedPageUrl, type WebPage } from './webPage';

/** `acp.mentions.allowPrivateUrls`: read from the user's (or remote) settings only (the setting is machine-scoped). */
function allowPrivate(): boolean {
  return vscode.workspace.getConfiguration('acp.mentions').get<boolean>('allowPrivateUrls') === true;
}

/** The clipboard's text when it is one URL, for the box to start with. */
async function clipboardUrl(): Promise<string> {
  const text = (await vscode.env.clipboard.readText()).trim();
  return text.length <= 2000 && /^https?:\/\/\S+$/i.test(text) ? text : '';
}

/** A URL for the log: without its query or fragment, which may carry a token. */
function logged(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** `pageWorker`: the worker that turns HTML into Markdown (dist/page-text.js). */
export async function urlAttachment(pageWorker: string, log: Logger): Promise<NewAttachment | string> {
  const allowed = allowPrivate();
  const named = await vscode.window.showInputBox({
    title: vscode.l10n.t('Attach a Web Page'),
    prompt: vscode.l10n.t('The https page to fetch. You confirm before it is fetched.'),
    placeHolder: 'https://',
    value: await clipboardUrl(),
    ignoreFocusOut: true,
    // A warning, not an error: Enter still goes on, and the chat then says why the page is not fetched.
    validateInput: (value) => {
      const refused = value.trim() === '' ? undefined : refusedPageUrl(value, allowed);
      return refused ? { message: refused, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
    },
  });
  if (!named?.trim()) return vscode.l10n.t('No page was named.');
  const url = named.trim();
  const refused = refusedPageUrl(url, allowed);
  if (refused) return vscode.l10n.t('{0} was not fetched: {1}.', url.slice(0, 200), refused);
  const fetchIt = vscode.l10n.t('Fetch and Attach');
  const confirmed = await vscode.window.showQuickPick(
    [
      { label: fetchIt, detail: url },
      { label: vscode.l10n.t('Cancel'), detail: undefined },
    ],
    {
      ignoreFocusOut: true,
      title: vscode.l10n.t('Fetch {0}?', new URL(url).host),
      placeHolder: vscode.l10n.t(
        'The page is fetched from the machine the extension runs on, with your proxy settings, and its text goes to the agent',
      ),
    },
  );
  if (confirmed?.label !== fetchIt) return vscode.l10n.t('The page was not fetched.');
  let page: WebPage;
  try {
    page = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Fetching {0}', url.slice(0, 200)), cancellable: true },
      (_progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        const toMarkdown = (html: string) => htmlToMarkdownApart(pageWorker, html, controller.signal);
        return fetchPage(url, { allowPrivate: allowed, toMarkdown, signal: controller.signal });
      },
    );
  } catch (error) {
    log.info(`[mentions] ${logged(url)} was not fetched: ${errorMessage(error)}`);
    return vscode.l10n.t('{0} was not fetched: {1}.', url.slice(0, 200), errorMessage(error));
  }
  const size = textSize(page.text);
  if (size > MAX_MENTION_BYTES)
    return vscode.l10n.t('{0} is over {1} MB as text, too large to attach.', url.slice(0, 200), MAX_MENTION_BYTES / 1024 / 1024);
  if (page.text.trim() === '') return vscode.l10n.t('{0} has no text to attach.', url.slice(0, 200));
  // Redirected to another host: the chip says where the page came from.
  const from = new URL(page.url).host;
  const title = page.title.slice(0, 60);
  return {
    kind: 'url',
    label: from === new URL(url).host ? vscode.l10n.t('Page: {0}', title) : vscode.l10n.t('Page: {0} (from {1})', title, from),
    text: page.text,
    uri: page.url,
    mimeType: 'text/markdown',
    size,
  };
}
