// The entry point, kept small so that activation costs a few milliseconds: it registers what VS Code needs at once
// (every contributed command, the chat restore hook, the Sessions view and the agent status bar item) and loads the
// rest (core.ts: the protocol core, the agents, the chats) on first use. A command run before that loads the core,
// which registers the real command in place of the stand-in, and is then run again.
import * as vscode from 'vscode';
import { AgentStatusItem } from './agentStatus';
import type { ChatPanel } from './chat/panel';
import type { Core } from './core';
import { CHAT_VIEW_TYPE, SESSIONS_VIEW_ID } from './ids';
import type { PreviousSessionItem } from './previousSessions';

/** What the extension offers other extensions (and its integration tests) through `exports`. */
export interface AcpApi {
  /** Same as "ACP: New Chat"; with a name, opens a chat with that configured agent. */
  newChat(agentName?: string): Promise<ChatPanel | undefined>;
  /** The open chats, oldest first. */
  readonly chats: readonly ChatPanel[];
  /** What "Open Previous Session" lists for the agent: its `session/list` when it has one, else the local history. */
  previousSessions(agentName: string): Promise<PreviousSessionItem[]>;
}

let loaded: Core | undefined;

export function activate(context: vscode.ExtensionContext): AcpApi {
  const channel = vscode.window.createOutputChannel('ACP', { log: true });
  const status = new AgentStatusItem();
  const sessions = new DeferredTree(() => core());
  const sessionsTree = vscode.window.createTreeView<unknown>(SESSIONS_VIEW_ID, { treeDataProvider: sessions });
  context.subscriptions.push(channel, status, sessions, sessionsTree);

  const standIns: vscode.Disposable[] = [];
  let loading: Promise<Core> | undefined;
  const core = (): Promise<Core> =>
    (loading ??= Promise.resolve().then(() => {
      // dist/core.js, a bundle of its own (see esbuild.mjs). The stand-ins go and the core's commands come in the
      // same tick, so a command is never missing.
      const { startCore } = require('./core') as typeof import('./core');
      for (const standIn of standIns.splice(0)) standIn.dispose();
      loaded = startCore(context, { channel, status, sessionsTree, provideSessions: (provider) => sessions.provide(provider) });
      return loaded;
    }));

  const contributed = (context.extension.packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? [];
  for (const { command } of contributed) {
    standIns.push(
      vscode.commands.registerCommand(command, async (...args: unknown[]) => {
        await core();
        return vscode.commands.executeCommand(command, ...args);
      }),
    );
  }
  context.subscriptions.push(
    { dispose: () => standIns.forEach((d) => d.dispose()) },
    // Chats come back after a window reload; the view's state names the agent and the session.
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, { deserializeWebviewPanel: async (panel, state: unknown) => (await core()).chats.restore(panel, state) }),
  );

  return {
    newChat: async (agentName) => (await core()).chats.newChat(agentName),
    get chats() {
      return loaded?.chats.all ?? [];
    },
    previousSessions: async (agentName) => (await core()).previousSessions(agentName),
  };
}

export async function deactivate(): Promise<void> {
  const core = loaded;
  const stopped = core?.stopAgents();
  // VS Code disposes the subscriptions right after calling this and before awaiting it, so once this resumes the
  // closing chats have asked for their last transcript writes; the flush waits for them while the agents stop.
  await undefined;
  await Promise.all([stopped, core?.flushTranscripts()]);
  loaded = undefined;
}

/** The Sessions view's data: asking for it loads the core, whose provider then answers. */
class DeferredTree implements vscode.TreeDataProvider<unknown>, vscode.Disposable {
  private provider: vscode.TreeDataProvider<unknown> | undefined;
  private subscription: vscode.Disposable | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(private readonly load: () => Promise<unknown>) {}

  provide(provider: vscode.TreeDataProvider<unknown>): void {
    this.provider = provider;
    this.subscription = provider.onDidChangeTreeData?.(() => this.changeEmitter.fire());
    this.changeEmitter.fire();
  }

  async getChildren(node?: unknown): Promise<unknown[]> {
    if (!this.provider) await this.load();
    return (await this.provider?.getChildren(node)) ?? [];
  }

  getTreeItem(node: unknown): vscode.TreeItem | Thenable<vscode.TreeItem> {
    if (!this.provider) throw new Error('the Sessions view has no data yet');
    return this.provider.getTreeItem(node);
  }

  dispose(): void {
    this.subscription?.dispose();
    this.changeEmitter.dispose();
  }
}
