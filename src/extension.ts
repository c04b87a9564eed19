// Wiring only: the log, the editor adapters, the agents and the chats, and the commands that reach them.
import * as vscode from 'vscode';
import { tagged } from './acp/log';
import { AgentManager } from './agents';
import type { ChatPanel } from './chat/panel';
import { Chats } from './chats';
import { readOutsideWorkspacePolicy, readTrace } from './config';
import { EditorFiles, notificationPrompts } from './files';
import { channelLogger, messageTracer } from './log';

/** What the extension offers other extensions (and its integration tests) through `exports`. */
export interface AcpApi {
  /** Same as "ACP: New Chat"; with a name, opens a chat with that configured agent. */
  newChat(agentName?: string): Promise<ChatPanel | undefined>;
  /** The open chats, oldest first. */
  readonly chats: readonly ChatPanel[];
}

let stopAgents: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): AcpApi {
  const channel = vscode.window.createOutputChannel('ACP', { log: true });
  const log = channelLogger(channel);
  const showLog = () => channel.show(true);
  const version = String(context.extension.packageJSON.version ?? '0.0.0');

  // Read once and on change: the tracer asks for every line, and a flood is thousands of lines a second.
  let trace = readTrace();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('acp.trace')) trace = readTrace();
    }),
  );

  const agents = new AgentManager(
    (config) =>
      new EditorFiles({
        agent: config.name,
        readMissingAsEmpty: config.readMissingAsEmpty,
        outsideWorkspace: readOutsideWorkspacePolicy,
        prompts: notificationPrompts,
      }),
    { name: 'acp-client', title: 'ACP Client for VS Code', version },
    log,
    (agentName) => messageTracer(tagged(log, `trace ${agentName}`), () => trace),
  );
  const chats = new Chats(agents, context.extensionUri, log, showLog);
  stopAgents = () => agents.stopAll();

  context.subscriptions.push(
    channel,
    chats,
    agents,
    vscode.commands.registerCommand('acp.newChat', (agentName?: unknown) => chats.newChat(typeof agentName === 'string' ? agentName : undefined)),
    vscode.commands.registerCommand('acp.showLog', showLog),
  );
  log.info(`[extension] activated ${version}`);

  return {
    newChat: (agentName) => chats.newChat(agentName),
    get chats() {
      return chats.all;
    },
  };
}

export async function deactivate(): Promise<void> {
  await stopAgents?.();
  stopAgents = undefined;
}
