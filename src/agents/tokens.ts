// The tokens of agents at a URL, kept in VS Code's SecretStorage (the OS keychain): never in settings, never logged
// (the log's scrubber learns each one it reads or is given), never in Export Diagnostics. A token goes as
// `Authorization: Bearer <token>` with the WebSocket upgrade request, or with every Streamable HTTP request, and only
// to the origin (scheme, host and port) it was set for.
import * as vscode from 'vscode';
import type { AgentCommand } from '../acp/process';
import { readAgentUrl, type AgentRemote } from '../acp/agentUrl';
import type { AgentConfig } from '../settings/config';

const KEY_PREFIX = 'acp.agentToken:';
/** A token longer than this is not a token: it is refused when set. */
const MAX_TOKEN = 16 * 1024;

/** Why `token` cannot go in an HTTP header, in the user's words; undefined when it can. */
export function tokenProblem(token: string): string | undefined {
  if (token.length > MAX_TOKEN) return vscode.l10n.t('A token is at most {0} characters.', MAX_TOKEN);
  // Visible ASCII only: a header value with a line break or a control character would be refused, or worse.
  if (!/^[\x21-\x7e]*$/.test(token.trim())) return vscode.l10n.t('A token is one line of visible ASCII characters.');
  return undefined;
}

/** What is stored for an agent: its token, and the origin it was set for (a token never follows a changed URL). */
interface Stored {
  readonly origin: string;
  readonly token: string;
}

function originOf(url: string | undefined): string | undefined {
  const read = url === undefined ? undefined : readAgentUrl(url);
  return read && 'url' in read ? read.url.origin : undefined;
}

export class AgentTokens {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    /** Teaches the log's scrubber a secret value. */
    private readonly learn: (name: string, value: string) => void,
    /** A line for the log (never a token). */
    private readonly log: (line: string) => void,
  ) {}

  /** What starts the agent: its command line in `cwd`, or its URL with its token. */
  async target(config: AgentConfig, cwd: string): Promise<AgentCommand | AgentRemote> {
    if (config.url === undefined) return { command: config.command, args: config.args, env: config.env, cwd };
    return { url: config.url, headers: await this.headers(config) };
  }

  /**
   * The headers of the upgrade request for an agent at a URL: its token, where one was set for the origin its URL
   * names now. A token set for another origin (the entry's URL changed since) is not sent anywhere.
   */
  private async headers(config: AgentConfig): Promise<Record<string, string>> {
    const stored = await this.read(config.name);
    if (!stored) return {};
    this.learn(`${config.name} token`, stored.token);
    if (stored.origin !== originOf(config.url)) {
      this.log(`the token of ${config.name} was set for ${stored.origin}, not its URL now: it is not sent; set it again`);
      return {};
    }
    return { Authorization: `Bearer ${stored.token}` };
  }

  private async read(agent: string): Promise<Stored | undefined> {
    const raw = await this.secrets.get(KEY_PREFIX + agent);
    if (!raw) return undefined;
    try {
      const stored = JSON.parse(raw) as Partial<Stored>;
      if (typeof stored.origin === 'string' && typeof stored.token === 'string') return { origin: stored.origin, token: stored.token };
    } catch {
      // said below
    }
    this.log(`the stored token of ${agent} is not one this version reads: it is not sent; set it again`);
    return undefined;
  }

  /** Stores the token of `agent` for the origin of its URL now. */
  async set(agent: AgentConfig, token: string): Promise<void> {
    const origin = originOf(agent.url);
    if (origin === undefined) throw new Error(vscode.l10n.t('"{0}" has no URL a token could go to.', agent.name));
    this.learn(`${agent.name} token`, token);
    await this.secrets.store(KEY_PREFIX + agent.name, JSON.stringify({ origin, token } satisfies Stored));
  }

  async delete(agent: string): Promise<void> {
    await this.secrets.delete(KEY_PREFIX + agent);
  }

  private async has(agent: string): Promise<boolean> {
    return (await this.secrets.get(KEY_PREFIX + agent)) !== undefined;
  }

  /**
   * "ACP: Set Agent Token…": asks for the token of an agent at a URL (hidden as it is typed); empty removes it.
   * Returns true when it changed.
   */
  async ask(agent: AgentConfig): Promise<boolean> {
    const host = agent.url ? readAgentUrl(agent.url).host : agent.name;
    const had = await this.has(agent.name);
    const token = await vscode.window.showInputBox({
      title: vscode.l10n.t('Token for {0} ({1})', agent.name, host),
      prompt: had
        ? vscode.l10n.t('Sent to {0} as "Authorization: Bearer …". A token is set; leave this empty to remove it.', host)
        : vscode.l10n.t('Sent to {0} as "Authorization: Bearer …". Kept in the system keychain, never in settings.', host),
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => tokenProblem(value),
    });
    if (token === undefined) return false;
    if (token.trim() === '') {
      if (!had) return false;
      await this.delete(agent.name);
      void vscode.window.showInformationMessage(vscode.l10n.t('The token for {0} was removed.', agent.name));
      return true;
    }
    await this.set(agent, token.trim());
    void vscode.window.showInformationMessage(vscode.l10n.t('The token for {0} is set. It is used the next time the agent connects.', agent.name));
    return true;
  }
}
