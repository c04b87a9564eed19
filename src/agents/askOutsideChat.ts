// A question the agent asks outside any chat (request-scoped elicitation, during sign-in or setup). It never takes
// the screen at a moment the agent chose: a notification says there is a question, and only its Show opens it in the
// editor's own quick input, one field at a time, each checked as the chat checks it. Escape or closing the
// notification cancels; a url question asks before anything is opened, and accepts only once VS Code opened it.
import * as vscode from 'vscode';
import type { PendingElicitation } from '../acp/elicitations';
import type * as S from '../acp/schema.gen';
import { fieldValue, type FieldInput } from '../chat/protocol';
import { elicitationViews } from '../chat/elicitationViews';

/** Settles with `promise`, or with undefined once `signal` aborts (the agent withdrew the question, or exited). */
function unlessAborted<T>(promise: Thenable<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
    promise.then(resolve, () => resolve(undefined));
  });
}

export async function askOutsideChat(
  agent: string,
  question: Omit<PendingElicitation, 'id'>,
  signal: AbortSignal,
): Promise<S.CreateElicitationResponse> {
  const view = elicitationViews([{ ...question, id: 0 }])[0];
  const cancel = new vscode.CancellationTokenSource();
  signal.addEventListener('abort', () => cancel.cancel(), { once: true });
  try {
    const show = vscode.l10n.t('Show');
    const message = view?.message ?? '';
    const heard = await unlessAborted(
      vscode.window.showInformationMessage(
        vscode.l10n.t('{0} has a question: {1}', agent, message.length > 300 ? `${message.slice(0, 300)}…` : message),
        show,
      ),
      signal,
    );
    if (heard !== show || signal.aborted) return { action: 'cancel' };
    if (view?.url) {
      const open = { label: vscode.l10n.t('$(link-external) Open {0}', view.url.host || view.url.url.slice(0, 200)), detail: view.url.url };
      const decline = { label: vscode.l10n.t('Decline') };
      const choice = await vscode.window.showQuickPick([open, decline], { title: `${agent}: ${message}`, ignoreFocusOut: true }, cancel.token);
      if (choice === decline) return { action: 'decline' };
      if (choice !== open) return { action: 'cancel' };
      let uri: vscode.Uri;
      try {
        const url = new URL(question.url?.url ?? '');
        if (url.protocol !== 'https:' && url.protocol !== 'http:') return { action: 'decline' };
        uri = vscode.Uri.parse(url.toString(), true);
      } catch {
        return { action: 'decline' };
      }
      // VS Code may ask first about a site the user has not trusted: accepted only once it was opened.
      return (await vscode.env.openExternal(uri)) ? { action: 'accept' } : { action: 'cancel' };
    }
    const form = view?.form;
    if (!form || form.unsupported.length > 0) return { action: 'decline' };
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const [index, field] of form.fields.entries()) {
      const title = `${agent}: ${view.message} (${index + 1}/${form.fields.length})`;
      let input: FieldInput | undefined;
      if (field.kind === 'boolean' || field.kind === 'select' || field.kind === 'multiselect') {
        const items =
          field.kind === 'boolean'
            ? [
                { label: vscode.l10n.t('Yes'), value: 'true' },
                { label: vscode.l10n.t('No'), value: 'false' },
              ]
            : (field.options ?? []).map((o) => ({ label: o.title, value: o.value }));
        const picked = await vscode.window.showQuickPick(
          items,
          {
            title,
            placeHolder: field.label + (field.description ? ` — ${field.description}` : ''),
            canPickMany: field.kind === 'multiselect',
            ignoreFocusOut: true,
          },
          cancel.token,
        );
        if (picked === undefined) return { action: 'cancel' };
        const values = (Array.isArray(picked) ? picked : [picked]).map((p) => p.value);
        input = field.kind === 'boolean' ? values[0] === 'true' : field.kind === 'multiselect' ? values : values[0];
      } else {
        const typed = await vscode.window.showInputBox(
          {
            title,
            prompt: field.label + (field.required ? ' *' : '') + (field.description ? ` — ${field.description}` : ''),
            value: typeof field.default === 'string' || typeof field.default === 'number' ? String(field.default) : '',
            ignoreFocusOut: true,
            validateInput: (text) => fieldValue(vscode.l10n.t, field, text).error,
          },
          cancel.token,
        );
        if (typed === undefined) return { action: 'cancel' };
        input = typed;
      }
      const { value, error } = fieldValue(vscode.l10n.t, field, input);
      if (error) return { action: 'cancel' };
      if (value !== undefined) content[field.name] = value;
    }
    return { action: 'accept', content };
  } finally {
    cancel.dispose();
  }
}
