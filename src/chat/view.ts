// Turns the session model into the view messages the webview renders. Pure: no `vscode`, unit-tested in Node.
import type * as S from '../acp/schema.gen';
import { isAbsolute, relative, sep } from 'node:path';
import type { Entry, SessionModel, TerminalState, ToolCallState, TurnState } from '../acp/session';
import { plainTerminalText } from './ansi';
import type { EntryView, PermissionView, TerminalView, TurnView } from './protocol';

/** Characters of a command's output sent to the chat; "Show in Terminal" has the rest. */
export const TERMINAL_VIEW_LIMIT = 64 * 1024;

const KIND_LABELS: Record<string, string> = {
  read: 'Read',
  edit: 'Edit',
  delete: 'Delete',
  move: 'Move',
  search: 'Search',
  execute: 'Run command',
  think: 'Think',
  fetch: 'Fetch',
  switch_mode: 'Switch mode',
  other: 'Tool',
};

/** "Run command", "Edit", …, for notifications and the chat. */
export function kindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? 'Tool';
}

/** The view of one entry. `cwd` makes paths short; `terminals` is the session's command output. */
export function entryView(entry: Entry, cwd: string, terminals: ReadonlyMap<string, TerminalState>): EntryView {
  if (entry.type === 'message') return { id: entry.id, kind: 'message', role: entry.role, text: blocksText(entry.content) };
  const call = entry.call;
  return {
    id: entry.id,
    kind: 'tool',
    toolCallId: call.toolCallId,
    title: call.title || 'Tool call',
    toolKind: call.kind,
    status: call.status,
    locations: call.locations.map((l) => `${shortPath(l.path, cwd)}${l.line != null ? `:${l.line}` : ''}`),
    diffs: diffsOf(call).map((d) => ({ label: shortPath(d.path, cwd), created: d.oldText == null })),
    terminals: terminalIds(call, terminals).map((id) => terminalView(id, terminals.get(id))),
    ...(call.autoAnswer ? { autoAnswer: `${call.autoAnswer.optionName}, answered by ${call.autoAnswer.reason}` } : {}),
  };
}

export function diffsOf(call: ToolCallState): Extract<ToolCallState['content'][number], { type: 'diff' }>[] {
  return call.content.filter((c) => c.type === 'diff');
}

/** The terminals a tool call shows: its `terminal` content, then any whose output only came through `_meta`. */
function terminalIds(call: ToolCallState, terminals: ReadonlyMap<string, TerminalState>): string[] {
  const ids = call.content.flatMap((c) => (c.type === 'terminal' ? [c.terminalId] : []));
  // codex-acp names the terminal after the tool call and may send no terminal content at all.
  if (terminals.has(call.toolCallId) && !ids.includes(call.toolCallId)) ids.push(call.toolCallId);
  return ids;
}

function terminalView(id: string, state: TerminalState | undefined): TerminalView {
  const raw = state?.text ?? '';
  const tail = raw.length > TERMINAL_VIEW_LIMIT ? raw.slice(raw.length - TERMINAL_VIEW_LIMIT) : raw;
  const exit = state?.exitStatus;
  return {
    id,
    output: plainTerminalText(tail),
    truncated: (state?.truncated ?? false) || tail.length < raw.length,
    ...(exit ? { exit: exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.exitCode ?? 'unknown'}` } : {}),
  };
}

/** A path inside `cwd` relative to it; any other path as it is. */
export function shortPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : path;
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
  return model.permissions.map((p) => {
    const call = model.toolCall(p.toolCallId);
    return {
      id: p.id,
      toolCallId: p.toolCallId,
      title: call?.title || 'Tool call',
      kindLabel: kindLabel(call?.kind ?? 'other'),
      hasDiff: call !== undefined && diffsOf(call).length > 0,
      options: p.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    };
  });
}
