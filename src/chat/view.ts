// Turns the session model into the view messages the webview renders. Pure: no `vscode`, unit-tested in Node.
import type * as S from '../acp/schema.gen';
import type { Entry, SessionModel, TurnState } from '../acp/session';
import type { EntryView, PermissionView, TurnView } from './protocol';

export function entryView(entry: Entry): EntryView {
  if (entry.type === 'message') return { id: entry.id, kind: 'message', role: entry.role, text: blocksText(entry.content) };
  const call = entry.call;
  return { id: entry.id, kind: 'tool', toolCallId: call.toolCallId, title: call.title || 'Tool call', toolKind: call.kind, status: call.status };
}

/** The text of content blocks; what cannot be shown as text yet is named in brackets. */
export function blocksText(blocks: readonly S.ContentBlock[]): string {
  let text = '';
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'resource_link':
        text += `[${block.title ?? block.name}](${block.uri})`;
        break;
      case 'resource':
        text += `[${block.resource.uri}]`;
        break;
      case 'image':
        text += '[image]';
        break;
      case 'audio':
        text += '[audio]';
        break;
    }
  }
  return text;
}

export function turnView(turn: TurnState): TurnView {
  switch (turn.phase) {
    case 'idle':
      return { phase: 'idle', ...(turn.stopReason ? { stopReason: turn.stopReason } : {}), ...(turn.error ? { error: turn.error } : {}) };
    default:
      return { phase: turn.phase };
  }
}

export function permissionViews(model: SessionModel): PermissionView[] {
  return model.permissions.map((p) => ({
    id: p.id,
    title: model.toolCall(p.toolCallId)?.title || 'Tool call',
    options: p.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
  }));
}
