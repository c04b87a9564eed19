// Which chat a chat command acts on: a row of the Sessions view, a session (`{agent, sessionId}`), or with nothing,
// the chat the user last worked in. Open in a panel, or only kept on this computer.
import * as vscode from 'vscode';
import type { ChatPanel } from '../chat/panel';
import type { Chats } from '../chats/chats';
import { SessionTarget } from '../common/sessionTarget';
import { summaryLabel, type TranscriptSummary } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import type { SessionNode } from './sessionsView';

/** A chat a command acts on: open in a panel, or only kept on this computer. */
export type ChatTarget = { readonly open: ChatPanel } | { readonly kept: TranscriptSummary };

const NamedSession = SessionTarget.partial({ cwd: true });

/** The chat `value` names, else the one the user last worked in; undefined (after saying why) when there is none. */
export async function chatTarget(chats: Chats, store: TranscriptStore, value: unknown): Promise<ChatTarget | undefined> {
  const node = value && typeof value === 'object' && 'kind' in value ? (value as SessionNode) : undefined;
  if (node?.kind === 'chat' && chats.all.includes(node.panel)) return { open: node.panel };
  if (node?.kind === 'history') return named(chats, store, node.summary.agent, node.summary.sessionId);
  const parsed = NamedSession.safeParse(value);
  if (parsed.success) return named(chats, store, parsed.data.agent, parsed.data.sessionId);
  const panel = chats.target;
  if (panel) return { open: panel };
  void vscode.window.showInformationMessage(vscode.l10n.t('Open a chat first, or choose a session in the Sessions view.'));
  return undefined;
}

async function named(chats: Chats, store: TranscriptStore, agent: string, sessionId: string): Promise<ChatTarget | undefined> {
  const open = chats.showing(agent, sessionId);
  if (open) return { open };
  const kept = (await store.list()).find((s) => s.agent === agent && s.sessionId === sessionId);
  if (kept) return { kept };
  void vscode.window.showWarningMessage(vscode.l10n.t('That session is not kept on this computer.'));
  return undefined;
}

/** The agent, session and folder of a target (no session: an open chat that has none yet). */
export function targetSession(target: ChatTarget): { agent: string; sessionId: string | undefined; cwd: string | undefined; title: string } {
  if ('open' in target) {
    const panel = target.open;
    return { agent: panel.agentName, sessionId: panel.model.session?.sessionId, cwd: panel.model.session?.cwd, title: panel.title };
  }
  const kept = target.kept;
  return { agent: kept.agent, sessionId: kept.sessionId, cwd: kept.cwd, title: summaryLabel(kept) };
}
