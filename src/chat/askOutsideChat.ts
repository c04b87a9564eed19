// A question the agent asks outside any chat (request-scoped elicitation, during sign-in or setup): asked in the
// editor's own quick input, one field at a time, each checked as the chat checks it. Escape cancels; a url question
// asks before anything is opened.
import * as vscode from 'vscode';
import type { PendingElicitation } from '../acp/elicitations';
import type * as S from '../acp/schema.gen';
import { fieldValue, type FieldInput } from './protocol';
import { elicitationViews } from './view';

export async function askOutsideChat(
  agent: string,
  question: Omit<PendingElicitation, 'id'>,
  signal: AbortSignal,
): Promise<S.CreateElicitationResponse> {
  const view = elicitationViews([{ ...question, id: 0 }])[0];
  const cancel = new vscode.CancellationTokenSource();
  signal.addEventListener('abort', () => cancel.cancel(), { once: true });
  try {
    if (view?.url) {
      const open = vscode.l10n.t('Open');
      const decline = vscode.l10n.t('Decline');
      const choice = await vscode.window.showInformationMessage(
        vscode.l10n.t('{0} asks: {1}', agent, view.message),
        { modal: true, detail: vscode.l10n.t('It would open {0}', view.url.url) },
        open,
        decline,
      );
      if (choice === decline) return { action: 'decline' };
      if (choice !== open) return { action: 'cancel' };
      let uri: vscode.Uri;
      try {
        const url = new URL(view.url.url);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') return { action: 'decline' };
        uri = vscode.Uri.parse(url.toString(), true);
      } catch {
        return { action: 'decline' };
      }
      await vscode.env.openExternal(uri);
      return { action: 'accept' };
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
