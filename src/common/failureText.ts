// The user's words for what failed: the core's errors carry facts (acp/errors.ts's Failure), worded here in the
// user's language. The agent's own words, and the OS's, pass through as they are.
import * as vscode from 'vscode';
import { failureOf, type Failure, type PromptRefusal, type Refusal } from '../acp/errors';

/** What the end of an agent took from the user: the requests that were waiting for an answer (a sentence, or ''). */
export function withdrawnText(count: number): string {
  if (count === 0) return '';
  return count === 1
    ? vscode.l10n.t('The request that was waiting for your answer was withdrawn.')
    : vscode.l10n.t('The {0} requests that were waiting for your answer were withdrawn.', count);
}

/** `error` in a sentence for the user (without a full stop). */
export function failureText(error: unknown): string {
  return worded(failureOf(error));
}

function worded(f: Failure): string {
  switch (f.kind) {
    case 'exited': {
      const how = f.signal
        ? vscode.l10n.t('the agent was killed by {0}', f.signal)
        : vscode.l10n.t('the agent exited with code {0}', f.code ?? vscode.l10n.t('unknown'));
      return f.lastLine ? `${how}: ${f.lastLine}` : how;
    }
    case 'commandNotFound':
      return vscode.l10n.t("command '{0}' was not found; install it or set the path", f.command);
    case 'startFailed':
      return f.reason === 'missingFolder'
        ? vscode.l10n.t('the agent could not start: the working folder {0} does not exist', f.detail)
        : vscode.l10n.t('the agent could not start: {0}', f.detail);
    case 'spawnRefused':
      return vscode.l10n.t('{0} could not be started: {1}', f.command, f.detail);
    case 'initializeTimeout':
      return vscode.l10n.t('the agent did not answer initialize within {0} s', f.seconds);
    case 'protocolVersion':
      return vscode.l10n.t('the agent speaks ACP version {0}, but this extension supports version {1}', f.agentVersion, f.supported.join(', '));
    case 'connectionClosed':
      return f.cause
        ? vscode.l10n.t('the connection to the agent closed: {0}', worded(f.cause))
        : vscode.l10n.t('the connection to the agent closed');
    case 'disconnected':
      return disconnected(f);
    case 'notSupported':
      return refused(f);
    case 'promptRefused':
      return notSent(f);
    case 'agent':
    case 'other':
      return f.message;
  }
}

function disconnected(f: Extract<Failure, { kind: 'disconnected' }>): string {
  const why = ((): string => {
    switch (f.reason) {
      case 'closed':
        return vscode.l10n.t('the connection to {0} closed', f.host);
      case 'unreachable':
        return vscode.l10n.t('{0} could not be reached', f.host);
      case 'unauthorized':
        return f.detail
          ? vscode.l10n.t('{0} refused the token ({1}); set it with ACP: Set Agent Token…', f.host, f.detail)
          : vscode.l10n.t('{0} refused the token; set it with ACP: Set Agent Token…', f.host);
      case 'certificate':
        return vscode.l10n.t("{0}'s certificate is not trusted", f.host);
      case 'insecure':
        return vscode.l10n.t('{0} is not on this machine by name (localhost, 127.0.0.1 or ::1), so the URL must use wss:// or https://', f.host);
      case 'binaryFrame':
        return vscode.l10n.t('{0} sent a binary frame, which ACP does not use; the connection was closed', f.host);
      case 'frameTooLarge':
        return vscode.l10n.t('{0} sent a message larger than the client takes; the connection was closed', f.host);
      case 'unresponsive':
        return vscode.l10n.t('{0} stopped answering; the connection was closed', f.host);
      case 'error':
        return vscode.l10n.t('the connection to {0} failed', f.host);
    }
  })();
  return f.detail && f.reason !== 'unauthorized' ? `${why}: ${f.detail}` : why;
}

function notSent(r: PromptRefusal): string {
  switch (r.reason) {
    case 'closed':
      return vscode.l10n.t('this chat is closed');
    case 'agentEnded':
      return vscode.l10n.t('the agent is not running: {0}', worded(r.cause));
    case 'busy':
      return vscode.l10n.t('the agent is still working on the previous message');
    case 'noTurn':
      return vscode.l10n.t('no turn is running');
    case 'empty':
      return vscode.l10n.t('the message is empty');
    case 'notConnected':
      return vscode.l10n.t('{0} is not connected yet', r.agent);
    case 'attachmentWaiting':
      return vscode.l10n.t('{0} is {1}: choose Attach Anyway on it, or remove it, before sending.', r.label, r.size);
  }
}

function refused(r: Refusal): string {
  switch (r.what) {
    case 'method':
      return vscode.l10n.t('the agent does not support {0} (it did not advertise {1})', r.method, r.capability);
    case 'content':
      return r.content === 'image'
        ? vscode.l10n.t('this agent does not accept images in prompts')
        : r.content === 'audio'
          ? vscode.l10n.t('this agent does not accept audio in prompts')
          : r.content === 'resource'
            ? vscode.l10n.t('this agent does not accept embedded files in prompts')
            : vscode.l10n.t('this agent does not accept {0} content in prompts', r.content);
    case 'additionalDirectories':
      return vscode.l10n.t('the agent does not support additional workspace directories');
    case 'mcpTransport':
      return vscode.l10n.t('the agent does not support {0} MCP servers ({1})', r.transport, r.server);
  }
}
