// How starting or reopening a chat fails: one sentence that says what to do, the actions that go with it (in the
// chat, or on a notification when there is no chat yet), and the details in the log.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import { AgentStartFailure } from '../acp/startFailure';
import { AgentDisconnectedError, AgentExitError, CommandNotFoundError } from '../acp/errors';
import type { Logger } from '../acp/log';
import { UntrustedWorkspaceError } from '../agents/manager';
import type { ChatPanel } from '../chat/panel';
import type { ErrorAction } from '../chat/protocol';
import { openAgentSettings, type AgentConfig } from '../settings/config';
import { setupNotes } from './setupNotes';
import { failureText } from '../common/failureText';

/** The user did not sign in when the agent asked: the chat offers Sign In. */
export class SignInNeeded extends Error {
  override readonly name = 'SignInNeeded';
  constructor(agent: string) {
    super(vscode.l10n.t('{0} needs you to sign in before it can open a chat', agent));
  }
}

/** A missing command is fixed in the settings, a refused token with a new one; anything else is worth a restart first. */
function failureActions(error: unknown): ErrorAction[] {
  const cause = error instanceof AgentStartFailure ? error.cause : error;
  if (cause instanceof AgentDisconnectedError && cause.reason === 'unauthorized') return ['setToken', 'restart', 'showLog'];
  return cause instanceof CommandNotFoundError ? ['openSettings', 'restart', 'showLog'] : ['restart', 'showLog', 'openSettings'];
}

/** A chat's note, with what the session was opened without (MCP servers the agent cannot use). */
export function withNotes(note: string, session: AgentSession): string {
  return [note, ...setupNotes(session)].filter((n) => n !== '').join(' ');
}

/** The sentence for a chat that could not start (without its full stop). */
function describeFailure(name: string, error: unknown): string {
  if (error instanceof AgentStartFailure) return vscode.l10n.t('Could not start {0}: {1}', name, failureText(error));
  if (error instanceof SignInNeeded || error instanceof UntrustedWorkspaceError) return error.message;
  return vscode.l10n.t('{0} could not open a chat: {1}', name, failureText(error));
}

/** A chat in Restricted Mode: it says why nothing runs, and offers to manage trust. */
export function explainRestricted(panel: ChatPanel): void {
  panel.model.fail(
    vscode.l10n.t(
      '{0} was not started: this workspace is in Restricted Mode, and agents run commands and edit files. Trust the workspace to chat here.',
      panel.agentName,
    ),
    [],
    ['manageTrust'],
  );
}

/** A chat whose session could not be brought back shows why, with what the user can do. */
export function showFailure(panel: ChatPanel, error: unknown, log: Logger): void {
  const message = describeFailure(panel.agentName, error);
  log.error(`[chat] ${message}`);
  panel.model.tell('');
  if (error instanceof SignInNeeded) panel.model.fail(message, [], ['signIn']);
  else if (error instanceof UntrustedWorkspaceError) explainRestricted(panel);
  else
    panel.model.fail(
      message,
      error instanceof AgentStartFailure ? error.stderrTail : error instanceof AgentExitError ? error.stderrTail : [],
      failureActions(error),
    );
}

/** A chat that could not open at all: a notification with Sign In, or Open Settings and Show Log. */
export function reportFailure(agent: AgentConfig, error: unknown, log: Logger, actions: { signIn(): void; showLog(): void }): void {
  const sentence = `${describeFailure(agent.name, error)}.`;
  log.error(`[chat] ${sentence}`);
  if (error instanceof AgentStartFailure && error.stderrTail.length > 0) {
    log.error(`[chat] ${agent.name}'s last stderr lines:\n${error.stderrTail.slice(-20).join('\n')}`);
  }
  const signIn = vscode.l10n.t('Sign In');
  const settings = vscode.l10n.t('Open Settings');
  const showLog = vscode.l10n.t('Show Log');
  const setToken = vscode.l10n.t('Set Agent Token…');
  const picks = error instanceof SignInNeeded ? [signIn] : failureActions(error)[0] === 'setToken' ? [setToken, showLog] : [settings, showLog];
  void vscode.window.showErrorMessage(sentence, ...picks).then((pick) => {
    if (pick === signIn) actions.signIn();
    if (pick === setToken) void vscode.commands.executeCommand('acp.setAgentToken', agent.name);
    if (pick === settings) void openAgentSettings();
    if (pick === showLog) actions.showLog();
  });
}
