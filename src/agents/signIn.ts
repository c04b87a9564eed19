// Signing in to an agent, when it answers -32000 ("auth required"). The user picks one of the agent's methods: an
// agent method goes through `authenticate` (the agent does the work, often in a browser); a terminal method runs the
// agent's own command with the method's args and env in a VS Code terminal, and exit code 0 means signed in. A
// process that was signed in from outside has to be started again to notice, so that result asks for a restart.
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import { isTerminalAuth, type TerminalAuthMethod } from '../acp/authStatus';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import type { AgentConfig } from '../settings/config';
import { failureText } from '../common/failureText';

/** Signed in with the running process, or signed in from a terminal (the agent needs a new process), or not. */
export type SignInResult = 'signedIn' | 'restartAgent' | undefined;

export class SignIn {
  constructor(private readonly log: Logger) {}

  /**
   * Asks how to sign in to `config`'s agent and does it. Every way this does not end signed in is told in one
   * sentence, and resolves undefined.
   */
  async run(config: AgentConfig, client: AgentClient, cwd: string): Promise<SignInResult> {
    const name = config.name;
    // A terminal method runs the agent's command line here: not for an agent at a URL, whose command is elsewhere.
    const methods = client.authMethods(config.url === undefined);
    if (methods.length === 0) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          '{0} needs you to sign in, but it offers no way to sign in from here. Sign in with its own command line tool, then try again.',
          name,
        ),
      );
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      methods.map((method) => ({
        label: method.name,
        description: isTerminalAuth(method) ? vscode.l10n.t('in a terminal') : undefined,
        detail: method.description ?? undefined,
        method,
      })),
      {
        title: vscode.l10n.t('Sign in to {0}', name),
        placeHolder: vscode.l10n.t('{0} needs you to sign in. Choose how.', name),
        ignoreFocusOut: true,
      },
    );
    if (!pick) {
      this.log.info(`[auth] signing in to ${name} was cancelled`);
      return undefined;
    }
    return isTerminalAuth(pick.method) ? this.inTerminal(config, pick.method, cwd) : this.withAgent(name, client, pick.method);
  }

  private async withAgent(name: string, client: AgentClient, method: S.AuthMethod): Promise<SignInResult> {
    this.log.info(`[auth] ${name}: authenticate with "${method.id}"`);
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to {0} ({1})…', name, method.name), cancellable: true },
        async (_progress, token) => {
          const abort = new AbortController();
          const subscription = token.onCancellationRequested(() => abort.abort(new Error(vscode.l10n.t('you cancelled it'))));
          try {
            await client.authenticate(method.id, abort.signal);
          } finally {
            subscription.dispose();
          }
        },
      );
    } catch (error) {
      this.log.warn(`[auth] ${name}: authenticate failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Signing in to {0} did not work: {1}.', name, failureText(error)));
      return undefined;
    }
    this.log.info(`[auth] ${name}: signed in`);
    return 'signedIn';
  }

  /** Runs the agent's command with the method's args and env in a terminal the user can type into. */
  private async inTerminal(config: AgentConfig, method: TerminalAuthMethod, cwd: string): Promise<SignInResult> {
    const name = config.name;
    const args = [...config.args, ...(method.args ?? [])];
    // Names only: env values are often secrets.
    this.log.info(`[auth] ${name}: signing in in a terminal: ${[config.command, ...args].join(' ')}`);
    const terminal = vscode.window.createTerminal({
      name: vscode.l10n.t('Sign in to {0}', name),
      shellPath: config.command,
      shellArgs: args,
      cwd,
      env: { ...config.env, ...(method.env ?? {}) },
      iconPath: new vscode.ThemeIcon('account'),
      isTransient: true,
    });
    terminal.show();
    const exit = await new Promise<vscode.TerminalExitStatus | undefined>((resolve) => {
      const subscription = vscode.window.onDidCloseTerminal((closed) => {
        if (closed !== terminal) return;
        subscription.dispose();
        resolve(closed.exitStatus);
      });
    });
    if (exit?.code === 0) {
      this.log.info(`[auth] ${name}: the sign-in command exited with 0`);
      return 'restartAgent';
    }
    const why =
      exit?.code !== undefined
        ? vscode.l10n.t('the sign-in command exited with code {0}', exit.code)
        : vscode.l10n.t('the terminal was closed before it finished');
    this.log.warn(`[auth] ${name}: ${why}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Signing in to {0} did not finish: {1}.', name, why));
    return undefined;
  }
}
