// Permission requests as editor notifications. The request itself is state in the session model; this adapter only
// shows it and hands the user's choice back. A click on a notification whose request was already settled (answered
// in the chat, cancelled, the agent gone) finds nothing to resolve and does nothing.
import * as vscode from 'vscode';
import type { Session } from './acp/client';

export function showPermissionNotifications(session: Session, agentName: string): vscode.Disposable {
  const model = session.model;
  return model.onDidChange((change) => {
    if (change.type !== 'permission' || change.settled) return;
    const request = model.permissions.find((p) => p.id === change.id);
    if (!request) return;
    const call = model.toolCall(request.toolCallId);
    const title = call?.title || 'a tool call';
    const labels = uniqueLabels(request.options.map((o) => o.name));
    void vscode.window.showInformationMessage(`${agentName} asks permission: ${title}`, ...labels).then((pick) => {
      const index = pick === undefined ? -1 : labels.indexOf(pick);
      const option = request.options[index];
      if (option) model.resolvePermission(request.id, option.optionId);
    });
  });
}

/** Buttons need distinct labels; agents rarely repeat a name, but if one does, number the repeats. */
function uniqueLabels(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw) => {
    const name = raw.trim() || 'Option';
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}
