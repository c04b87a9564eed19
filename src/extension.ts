// The entry point, kept small so that activation costs a few milliseconds: it registers what VS Code needs at once
// (every contributed command, the chat restore hook, the Sessions view and the agent status bar item) and loads the
// rest (core.ts: the protocol core, the agents, the chats) on first use. A command run before that loads the core,
// which registers the real command in place of the stand-in, and is then run again. A core that fails to load is
// reported (the log, a notification with Show Log, the Sessions view's message), and the stand-ins stay to say so.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AgentStatusItem } from './agents/statusItem';
import { loadWithCodeCache } from './common/codeCache';
import { DisposableStore } from './common/disposables';
import { ShellHistory } from './editor/shellHistory';
import type { ChatHandle } from './chats/handle';
import type { Core } from './core';
import type * as CoreModule from './core';
import { CHAT_SIDE_BAR_VIEW_ID, CHAT_VIEW_TYPE, SESSIONS_VIEW_ID } from './ids';
import type { ListOptions, PreviousSessionItem } from './sessions/previousSessions';

/**
 * What the extension offers other extensions (and its integration tests) through `exports`. Chats come as handles
 * (see chats/handle.ts), which read what a chat shows and act as its user can; the panels and sessions stay inside.
 */
export interface AcpApi {
  /** Same as "ACP: New Chat"; with a name, opens a chat with that configured agent. */
  newChat(agentName?: string): Promise<ChatHandle | undefined>;
  /** The open chats, oldest first. */
  readonly chats: readonly ChatHandle[];
  /**
   * What "Open Previous Session" lists for the agent: its `session/list` when it has one, else the local history.
   * Archived sessions only with `{archived: true}`.
   */
  previousSessions(agentName: string, options?: ListOptions): Promise<PreviousSessionItem[]>;
}

let loaded: Core | undefined;

/** The core's code cache is written this long after the core started: its start's functions are compiled by then. */
const CODE_CACHE_DELAY_MS = 3000;

export function activate(context: vscode.ExtensionContext): AcpApi {
  const channel = vscode.window.createOutputChannel('ACP', { log: true });
  const status = new AgentStatusItem();
  // A command's output can only be read while it runs: watched from the start, for `@terminal`.
  const shell = new ShellHistory();
  const sessions = new DeferredTree(() => core());
  const sessionsTree = vscode.window.createTreeView<unknown>(SESSIONS_VIEW_ID, { treeDataProvider: sessions });
  context.subscriptions.push(channel, status, shell, sessions, sessionsTree);
  // Registered at once, so that a link clicked before the first chat is handled then (loading the core), not later.
  context.subscriptions.push(
    vscode.window.registerUriHandler({
      handleUri: async (uri) => {
        await (await core()).openLink(uri);
      },
    }),
  );

  const contributed = (context.extension.packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? [];
  const standIns = new DisposableStore();
  /** Why the core could not load: said again by every stand-in that runs, since the commands stay stand-ins. */
  let failure: string | undefined;
  const reportFailure = () => {
    const showLog = vscode.l10n.t('Show Log');
    void vscode.window.showErrorMessage(vscode.l10n.t('ACP Client could not start: {0}', failure ?? ''), showLog).then((pick) => {
      if (pick === showLog) channel.show(true);
    });
  };
  const registerStandIns = () => {
    for (const { command } of contributed) {
      try {
        standIns.push(
          vscode.commands.registerCommand(command, async (...args: unknown[]) => {
            const known = failure !== undefined;
            try {
              await core();
            } catch {
              // "Show Log" still shows the log; the others say the failure again (a new one was just said).
              if (command === 'acp.showLog') channel.show(true);
              else if (known) reportFailure();
              return undefined;
            }
            return vscode.commands.executeCommand(command, ...args);
          }),
        );
      } catch (error) {
        // A core that failed part way may have registered this command already: it stays the core's.
        channel.warn(`[extension] no stand-in for ${command}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  let loading: Promise<Core> | undefined;
  const core = (): Promise<Core> =>
    (loading ??= Promise.resolve().then(() => {
      // dist/core.js, a bundle of its own (see esbuild.mjs). The stand-ins go and the core's commands come in the
      // same tick, so a command is never missing. If loading or starting the core throws, the stand-ins come back
      // (and say why when run), the reason goes to the log, and a notification offers the log. The failure is
      // kept: the next use reports it again rather than starting a second, half-registered core.
      try {
        const { startCore } = loadCoreBundle(context, channel);
        standIns.clear();
        let started: Core | undefined;
        try {
          started = startCore(context, { channel, status, shell, sessionsTree, provideSessions: (provider) => sessions.provide(provider) });
        } finally {
          if (!started) registerStandIns();
        }
        loaded = started;
        return started;
      } catch (error) {
        // The first line: a missing module's message goes on with its require stack, which the log keeps.
        failure = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
        channel.error(
          `[extension] could not load the core (dist/core.js): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        sessionsTree.message = vscode.l10n.t('ACP Client could not start: {0}', failure);
        reportFailure();
        throw error;
      }
    }));

  /** Hands a chat page VS Code shows to the core; a core that cannot load says so in the page instead. */
  const withCore = async (webview: vscode.Webview, show: (loaded: Core) => Promise<void>): Promise<void> => {
    let loadedCore: Core;
    try {
      loadedCore = await core();
    } catch {
      webview.html = `<!DOCTYPE html><p>${escapeHtml(vscode.l10n.t('ACP Client could not start: {0}', failure ?? ''))}</p>`;
      return;
    }
    await show(loadedCore);
  };

  registerStandIns();
  context.subscriptions.push(
    standIns,
    // Chats come back after a window reload; the view's state names the agent and the session.
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state: unknown) => withCore(panel.webview, (loaded) => loaded.chats.restoreTab(panel, state)),
    }),
    // The chat view in the secondary side bar: it may be visible at startup, with the chat that was there to restore.
    vscode.window.registerWebviewViewProvider(CHAT_SIDE_BAR_VIEW_ID, {
      resolveWebviewView: (view, resolveContext) => withCore(view.webview, (loaded) => loaded.chats.resolveSideBar(view, resolveContext.state)),
    }),
  );

  return {
    newChat: async (agentName) => (await core()).newChat(agentName),
    get chats() {
      return loaded?.openChats() ?? [];
    },
    previousSessions: async (agentName, options) => (await core()).previousSessions(agentName, options),
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

/**
 * dist/core.js, a bundle of its own (see esbuild.mjs), compiled from V8's code cache when there is one. After a load
 * that compiled it afresh, the cache is written a while later, with what the core's start compiled by then.
 */
function loadCoreBundle(context: vscode.ExtensionContext, channel: vscode.LogOutputChannel): typeof CoreModule {
  const bundle = loadWithCodeCache<typeof CoreModule>(path.join(__dirname, 'core.js'), path.join(context.globalStorageUri.fsPath, 'code-cache'));
  channel.debug(`[extension] the core was compiled ${bundle.outcome === 'used' ? 'from its code cache' : `afresh (code cache: ${bundle.outcome})`}`);
  if (bundle.outcome !== 'used') {
    const timer = setTimeout(() => void bundle.save().then((problem) => problem && channel.warn(`[extension] ${problem}`)), CODE_CACHE_DELAY_MS);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return bundle.exports;
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
    if (!this.provider) {
      try {
        await this.load();
      } catch {
        return []; // the view's message says why
      }
    }
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
