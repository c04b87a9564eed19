// Everything but the entry point, wired: the log, the editor adapters, the agents and the chats, and the commands
// that reach them. extension.ts loads this on first use (a command, a chat to restore, the Sessions view), so that
// starting VS Code does not pay for the protocol core and its schemas. Wiring only.
import * as vscode from 'vscode';
import { openChatLink } from './chats/deepLinks';
import { HandOff } from './chats/handOff';
import { TranscriptChats } from './chats/earlierChats';
import { WorktreeRecords } from './worktrees/records';
import { EditorTools } from './editorTools/editorTools';
import { WorktreeCommands } from './worktrees/worktrees';
import { tagged } from './acp/log';
import { AgentCommands } from './agents/commands';
import { AgentTokens } from './agents/tokens';
import { readAgentUrl } from './acp/agentUrl';
import { AgentManager } from './agents/manager';
import type { AgentStatusItem } from './agents/statusItem';
import { SignIn } from './agents/signIn';
import { Chats } from './chats/chats';
import { KeptSessions } from './chats/closedChat';
import { handleOf, handleOrNone, type ChatHandle } from './chats/handle';
import { EditorChatActions } from './chat/actions';
import { readOutsideWorkspacePolicy, readPermissionSettings, readReviewPolicy, readTrace } from './settings/config';
import { readDefaultLevel } from './settings/agentDefaults';
import { createLogSinks, Diagnostics } from './diagnostics/export';
import { DiffDocuments } from './editor/diffs';
import { EditorFiles, notificationPrompts } from './editor/files';
import { FollowAgent } from './editor/follow';
import { channelLogger, messageTracer } from './common/log';
import { parseStoredRules, PermissionRules, type RuleStore } from './permissions/rules';
import { Permissions } from './permissions/permissions';
import { permissionLevelItem } from './chats/permissionLevel';
import { confirmAllowAllDefault, PermissionLevels } from './permissions/levels';
import type { ListOptions, PreviousSessionItem } from './sessions/previousSessions';
import { openTranscriptStore, registerSessions, type SessionsViewHost } from './sessions/sessions';
import { EditReviews } from './editor/review';
import { TerminalMirrors } from './editor/terminalMirror';
import { WorkspaceFiles } from './composer/workspaceFiles';
import { Mentions } from './composer/mentions';
import { PromptLibrary } from './composer/promptLibrary';
import type { ShellHistory } from './editor/shellHistory';
import { Checkpoints } from './checkpoints/checkpoints';
import { AgentChangeDecorations } from './checkpoints/decorations';
import { Feedback } from './checkpoints/feedback';
import { PlanReviews } from './plans/planReviews';
import { QuotaMeters } from './agents/quotaMeter';
import { CHECKPOINT_SCHEME, CheckpointDocuments } from './checkpoints/review';
import { PresetConsent } from './agents/presetConsent';
import { AgentCatalog } from './agents/catalog';
import { askOutsideChat } from './agents/askOutsideChat';
import { RegistryState } from './registry/state';
import { RegistryCommands } from './registry/commands';
import { ViewBadge } from './common/viewBadge';
import { AttentionWatch } from './chats/attentionWatch';
import { SideBarChatView } from './chats/sideBar';
import { ChatChoices } from './chats/chatChoices';
import { registerCommands } from './commands';

/** What the entry point gets back: what its API and its deferred hooks need. */
export interface Core {
  readonly chats: Chats;
  /** Same as "ACP: New Chat": the new chat's handle, or undefined when none opened. */
  newChat(agentName?: string): Promise<ChatHandle | undefined>;
  /** The open chats' handles, oldest first. */
  openChats(): readonly ChatHandle[];
  previousSessions(agentName: string, options?: ListOptions): Promise<PreviousSessionItem[]>;
  /** Stops every agent and waits for their processes to end. */
  stopAgents(): Promise<void>;
  /** Resolves when every transcript write asked for so far (the closing chats' last ones too) is on disk. */
  flushTranscripts(): Promise<void>;
  /** A link VS Code handed to the extension (`vscode://acp-client.acp-client/chat?…`). */
  openLink(uri: vscode.Uri): Promise<void>;
}

/** What the entry point made before the core was loaded, for the core to take over. */
export interface CoreHosts extends SessionsViewHost {
  readonly channel: vscode.LogOutputChannel;
  readonly status: AgentStatusItem;
  /** Each terminal's last command, watched from activation on (for `@terminal`). */
  readonly shell: ShellHistory;
}

// eslint-disable-next-line max-lines-per-function -- it wires every capability, in the order they need each other (its commands are one table, commands.ts)
export function startCore(context: vscode.ExtensionContext, hosts: CoreHosts): Core {
  const channel = hosts.channel;
  // Every line is scrubbed of the secret values in the settings, and the recent ones are kept for a bug report.
  const sinks = createLogSinks();
  const log = channelLogger(channel, sinks);
  // Counts of repeated warnings still held are written when the extension stops.
  context.subscriptions.push(log);
  const showLog = () => channel.show(true);
  const version = String(context.extension.packageJSON.version ?? '0.0.0');

  // Read once and on change: the tracer asks for every line, and a flood is thousands of lines a second.
  let trace = readTrace();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('acp.trace')) trace = readTrace();
    }),
  );

  const clientInfo = { name: 'acp-client', title: 'ACP Client for VS Code', version };
  const diffs = new DiffDocuments();
  const reviews = new EditReviews(diffs);
  const prompts = notificationPrompts(reviews);
  const levels = new PermissionLevels(context.workspaceState, tagged(log, 'permissions'), readDefaultLevel, confirmAllowAllDefault);
  const permissions = new Permissions(new PermissionRules(mementoRules(context)), levels, diffs, tagged(log, 'permissions'), readPermissionSettings);
  const follow = new FollowAgent(log);
  const checkpoints = new Checkpoints(context.globalStorageUri, log);
  const mirrors = new TerminalMirrors();
  const registry = new RegistryState(context.globalStorageUri, context.extensionUri, log);
  const transcripts = openTranscriptStore(context, log);
  const usedBefore = async (name: string) => (await transcripts.list()).some((t) => t.agent === name);
  const catalog = new AgentCatalog(() => registry.sources(), registry.onDidChange, new PresetConsent(context.globalState, log, usedBefore));
  const agents = new AgentManager(
    (config, quirks) => {
      // An agent on another machine is named with its host in every question it asks.
      const named = config.url === undefined ? config.name : `${config.name} (${readAgentUrl(config.url).host})`;
      const files = new EditorFiles({
        agent: named,
        readMissingAsEmpty: () => quirks().readMissingAsEmpty,
        outsideWorkspace: readOutsideWorkspacePolicy,
        review: readReviewPolicy,
        prompts,
        ownFolders: ['conversations', 'images'].map((folder) => vscode.Uri.joinPath(context.globalStorageUri, folder).fsPath),
      });
      const policy = permissions.policy(config.name);
      return {
        readTextFile: (params, _signal, scope) => files.readTextFile(params, scope),
        writeTextFile: (params, signal, scope) =>
          checkpoints.aroundWrite(config.name, params.sessionId, params.path, params.content, () => files.writeTextFile(params, signal, scope)),
        decidePermission: (request) => policy.decidePermission(request),
        permissionAnswered: (request, option) => policy.permissionAnswered(request, option),
        declined: (why) => log.warn(`[${config.name}] ${why}`),
        elicitOutsideSession: (question, signal) => askOutsideChat(named, question, signal),
      };
    },
    clientInfo,
    log,
    (agentName) => messageTracer(log, agentName, () => trace),
    catalog,
    new AgentTokens(
      context.secrets,
      (name, value) => sinks.scrubber.learn([{ name, value }]),
      (line) => log.warn(`[agents] ${line}`),
    ),
  );
  const editorTools = new EditorTools(
    context.extensionPath,
    log,
    (secret) => sinks.scrubber.learn([{ name: 'editor tools secret', value: secret }]),
    (agent, file, current, proposed, signal) => reviews.review(agent, file, current, proposed, signal),
    (agent) => permissions.policy(agent),
  );
  const diagnostics = new Diagnostics(
    context,
    sinks,
    log,
    () => agents.snapshots(),
    () => editorTools.facts(),
  );
  // Send Feedback on Plan reaches a chat through the registry, which is made after it.
  const plans: PlanReviews = new PlanReviews((plan, feedback): Promise<boolean> => chats.planFeedback(plan, feedback));
  const actions = new EditorChatActions(diffs, mirrors, showLog, context.globalStorageUri.fsPath, plans);
  const files = new WorkspaceFiles(log);
  const worktrees = new WorktreeRecords(context.workspaceState);
  const mentions = new Mentions(
    files,
    hosts.shell,
    worktrees,
    new TranscriptChats(transcripts),
    vscode.Uri.joinPath(context.extensionUri, 'dist', 'page-text.js').fsPath,
    log,
  );
  // VS Code keeps the user's prompt files in <user data>/User/prompts, beside the extensions' global storage.
  const promptFiles = new PromptLibrary(vscode.Uri.joinPath(context.globalStorageUri, '..', '..', 'prompts'), log);
  // Send Feedback reaches a chat through the registry, which is made after it.
  let feedback: Feedback | undefined;
  const checkpointing = { checkpoints, sendFeedback: (key: string) => feedback?.sendSession(key) ?? Promise.resolve() };
  const sideBar = new SideBarChatView(context.extensionUri, log);
  const chats = new Chats(
    agents,
    {
      extensionUri: context.extensionUri,
      log,
      actions,
      files: mentions,
      prompts: promptFiles,
      folders: worktrees,
      storage: context.globalStorageUri.fsPath,
    },
    {
      transcripts,
      permissions,
      follow,
      checkpointing,
      choices: new ChatChoices(context.workspaceState, log),
      folders: worktrees,
      editorTools,
      kept: new KeptSessions(log),
    },
    new SignIn(log),
    sideBar,
  );
  feedback = new Feedback(checkpoints, (sessionId, text, attachments) => chats.sendContext(sessionId, text, attachments));
  transcripts.onDidRemove(({ agent, sessionId }) => void checkpoints.forget(agent, sessionId));
  const sessions = registerSessions(
    chats,
    agents,
    transcripts,
    log,
    hosts,
    checkpoints,
    worktrees,
    new HandOff((agentName) => chats.newChat(agentName), agents.catalog, context.globalStorageUri, log),
  );
  const decorations = new AgentChangeDecorations(checkpoints);
  const newChat = async (agentName?: string) => handleOrNone(await chats.newChat(agentName));
  hosts.status.connect(agents, chats);

  const badge = new ViewBadge(hosts.sessionsTree);
  const learnSecrets = (env: Readonly<Record<string, string>>) => sinks.scrubber.learn(Object.entries(env).map(([name, value]) => ({ name, value })));
  const agentCommands = new AgentCommands(agents, chats, clientInfo, log);
  const registryCommands = new RegistryCommands(registry, agents, context.globalState, badge, log, learnSecrets);
  const worktreeCommands = new WorktreeCommands(chats, agents, worktrees, transcripts, checkpoints, log);
  context.subscriptions.push(
    chats,
    sideBar,
    agents,
    catalog,
    registry,
    registryCommands,
    new AttentionWatch(chats, badge),
    new QuotaMeters(agents),
    diffs,
    reviews,
    permissions,
    levels,
    follow,
    mirrors,
    actions,
    files,
    mentions,
    promptFiles,
    checkpoints,
    feedback,
    plans,
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, new CheckpointDocuments(checkpoints, log)),
    vscode.window.registerFileDecorationProvider(decorations),
    decorations,
    agentCommands,
    diagnostics,
    ...permissionLevelItem(chats, levels),
    worktrees,
    editorTools,
    worktreeCommands,
    ...sessions.disposables,
    registerCommands({
      chats,
      agents: agentCommands,
      registry: registryCommands,
      sessions,
      worktrees: worktreeCommands,
      permissions,
      levels,
      reviews,
      follow,
      feedback,
      plans,
      diagnostics,
      log,
      showLog,
    }),
  );
  log.info(`[extension] loaded ${version}`);

  return {
    chats,
    newChat,
    openChats: () => chats.all.map((panel) => handleOf(panel)),
    previousSessions: (agentName, options) => sessions.previous.list(agentName, options),
    stopAgents: () => agents.stopAll(),
    flushTranscripts: () => transcripts.flush(),
    openLink: async (uri) => void (await openChatLink(uri, (agentName) => chats.newChat(agentName), agents.catalog, log)),
  };
}

/** Workspace and global rules live in VS Code's state for the extension, never in settings a workspace could edit. */
function mementoRules(context: vscode.ExtensionContext): RuleStore {
  const KEY = 'acp.permissionRules';
  const memento = (scope: 'workspace' | 'global') => (scope === 'workspace' ? context.workspaceState : context.globalState);
  return {
    load: (scope) => parseStoredRules(memento(scope).get<unknown>(KEY)),
    save: async (scope, rules) => memento(scope).update(KEY, rules),
  };
}
