// Permission requests in the editor. A request is state in the session model; this adapter shows it as a
// notification, keeps the user's attention on it (status bar, a note when VS Code was in the background), answers
// it by itself when a rule or setting says so, and learns rules from "always" answers. A click on a notification
// whose request was already settled (answered in the chat, cancelled, the agent gone) finds nothing to resolve.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';

/** What a watch needs of a session: its model and id (a chat's session, or one of its subagents). */
export type WatchedSession = Pick<AgentSession, 'model' | 'sessionId'>;
import type { PermissionContext, PermissionDecision } from '../acp/clientHandler';
import type { Logger } from '../acp/log';
import { preview } from '../acp/tolerance';
import type * as S from '../acp/schema.gen';
import type { ToolCallState } from '../acp/sessionState';
import { toolKind } from '../acp/toolKinds';
import { diffsOf, isPlanApproval, planOf } from '../acp/toolCalls';
import type { DiffDocuments } from '../editor/diffs';
import { workspaceRoots } from '../common/workspace';
import { checkPath } from '../common/paths';
import { LEVEL_NAMES, levelAnswer, neverAutomatic } from './levelRules';
import { AgentLevel, type LevelHost, type LevelWords } from './levelModes';
import { levelName, type PermissionLevels } from './levels';
import { describeRule, english } from './ruleText';
import { optionFor, type PermissionRules, ruleFromAnswer, type RuleScope, type ScopedRule } from './rules';
import { DisposableStore } from '../common/disposables';

export interface PermissionSettings {
  /** `acp.permissions.read`: reads inside the workspace may be allowed without asking. */
  readonly read: 'ask' | 'allowInWorkspace';
  /** `acp.permissions.remember`: where an "always" answer is kept. */
  readonly remember: RuleScope;
  /** `acp.edits.showDiffOnPermission`. */
  readonly showDiff: boolean;
}

/** Scope names for the log, which stays in English. */
const SCOPE_NAMES: Record<RuleScope, string> = { session: 'this chat', workspace: 'this workspace', global: 'everywhere' };

/** Scope names as the user reads them. */
function scopeName(scope: RuleScope): string {
  switch (scope) {
    case 'session':
      return vscode.l10n.t('this chat');
    case 'workspace':
      return vscode.l10n.t('this workspace');
    case 'global':
      return vscode.l10n.t('everywhere');
  }
}

interface Waiting {
  readonly session: WatchedSession;
  readonly agent: string;
  readonly reveal: () => void;
}

export class Permissions implements vscode.Disposable {
  private readonly waiting = new Map<WatchedSession, Waiting>();
  private readonly status: vscode.StatusBarItem;
  private arrivedInBackground = false;
  private readonly disposables = new DisposableStore();

  constructor(
    readonly rules: PermissionRules,
    readonly levels: PermissionLevels,
    private readonly diffs: DiffDocuments,
    private readonly log: Logger,
    private readonly settings: () => PermissionSettings,
  ) {
    this.status = vscode.window.createStatusBarItem('acp.permissions', vscode.StatusBarAlignment.Left, 100);
    this.status.name = vscode.l10n.t('ACP Permission Requests');
    this.status.command = 'acp.showPendingPermission';
    this.status.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.disposables.push(
      this.status,
      vscode.window.onDidChangeWindowState((state) => {
        if (state.focused) this.welcomeBack();
      }),
    );
  }

  /** A chat's level as its agent's own setting, for agents that have one (see levelModes.ts). */
  agentLevel(session: AgentSession, agent: string, host: LevelHost): AgentLevel {
    return new AgentLevel(session, this.log, host, LEVEL_WORDS, agent);
  }

  /** The rule and setting checks for one agent's requests, and learning from its answers. */
  policy(agent: string): {
    decidePermission(request: PermissionContext): PermissionDecision | undefined;
    permissionAnswered(request: PermissionContext, option: S.PermissionOption): void;
  } {
    return {
      decidePermission: (request) => this.decide(agent, request),
      permissionAnswered: (request, option) => this.learn(agent, request, option),
    };
  }

  /**
   * Shows one chat's permission requests as notifications, and counts them for the status bar. A subagent of the
   * chat is watched the same way, with its name in `agent`.
   */
  watch(session: WatchedSession, agent: string, reveal: () => void, host?: string): vscode.Disposable {
    // An agent on another machine is named with its host in every question.
    const named = host === undefined ? agent : `${agent} (${host})`;
    const model = session.model;
    const subscription = model.onDidChange((change) => {
      if (change.type !== 'permission') return;
      this.updateStatus();
      if (change.settled) return;
      const request = model.permissions.find((p) => p.id === change.id);
      const call = request && model.toolCall(request.toolCallId);
      if (!request || !call) return;
      if (!vscode.window.state.focused) this.arrivedInBackground = true;
      const edit = diffsOf(call)[0];
      if (edit && this.settings().showDiff) void this.diffs.show(edit, { preserveFocus: true, preview: true });
      this.notify(session, named, request.id, call, request.options);
    });
    this.waiting.set(session, { session, agent: named, reveal });
    return new vscode.Disposable(() => {
      subscription.dispose();
      this.waiting.delete(session);
      this.rules.forgetSession(session.sessionId, agent);
      this.updateStatus();
    });
  }

  private notify(session: WatchedSession, agent: string, id: number, call: ToolCallState, options: readonly S.PermissionOption[]): void {
    const labels = uniqueLabels(options.map((o) => o.name));
    const edit = diffsOf(call)[0];
    const plan = planOf(call);
    const showDiff = vscode.l10n.t('Show Diff');
    const showPlan = vscode.l10n.t('Show Plan');
    const buttons = [...labels, ...(edit ? [showDiff] : []), ...(plan ? [showPlan] : [])];
    const message = vscode.l10n.t(
      '{0} asks permission \u2014 {1}: {2}',
      agent,
      vscode.l10n.t(toolKind(call.kind).label),
      call.title || vscode.l10n.t('a tool call'),
    );
    const risky = call.kind === 'execute' || call.kind === 'delete' || call.kind === 'move';
    const show = risky ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(message, ...buttons).then((pick) => {
      if ((pick === showDiff && edit) || (pick === showPlan && plan)) {
        if (pick === showPlan && plan) void showMarkdown(plan);
        else if (edit) void this.diffs.show(edit, { preserveFocus: false, preview: true });
        // The click closed the notification; the question is still open.
        if (session.model.permissions.some((p) => p.id === id)) this.notify(session, agent, id, call, options);
        return;
      }
      const option = options[pick === undefined ? -1 : labels.indexOf(pick)];
      if (option) session.model.resolvePermission(id, option.optionId);
    });
  }

  private decide(agent: string, request: PermissionContext): PermissionDecision | undefined {
    const { call, options } = request;
    // The workspace folders (or the chat's worktree) only: a session's own folder is the agent's to say (a subagent's
    // `cwd` could be "/"); the chat's workspace is the host's.
    const roots = request.workspace ?? workspaceRoots();
    // A plan approval, or a request about a path outside the workspace, is the user's to answer: only a rule that
    // rejects may answer it, never one that allows, nor a level.
    // A subagent with roots of its own (Session.roots): outside them too.
    const userOnly = neverAutomatic(call, roots) !== undefined || (request.roots !== undefined && neverAutomatic(call, request.roots) !== undefined);
    // A subagent's request is its chat's: the chat's session rules and level answer it.
    const rule = this.rules.find({ agent, kind: call.kind, title: call.title }, request.chatSessionId);
    const ruled = rule && (!userOnly || rule.decision === 'reject') ? optionFor(options, rule.decision) : undefined;
    if (rule && ruled) {
      const reason = vscode.l10n.t('your rule \u201c{0}\u201d ({1})', describeRule(rule, vscode.l10n.t), scopeName(rule.scope));
      this.log.info(
        `answered "${ruled.name}" to ${agent}'s request ${preview(call.title)} by your rule \u201c${describeRule(rule, english)}\u201d (${SCOPE_NAMES[rule.scope]})`,
      );
      if (rule.decision === 'reject') {
        // Never rejected silently: the chat shows it, and so does a notification.
        const manageRules = vscode.l10n.t('Manage Rules');
        void vscode.window
          .showInformationMessage(vscode.l10n.t("Rejected {0}'s request \u201c{1}\u201d by {2}.", agent, call.title, reason), manageRules)
          .then((pick) => {
            if (pick === manageRules) void this.manage();
          });
      }
      return { optionId: ruled.optionId, reason };
    }
    if (userOnly) return undefined;
    if (call.kind === 'read' && this.settings().read === 'allowInWorkspace' && insideWorkspace(call, roots)) {
      const allow = options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
      if (allow) {
        this.log.info(
          `answered "${allow.name}" to ${agent}'s request ${preview(call.title)} by the acp.permissions setting, which allows reads inside the workspace`,
        );
        return { optionId: allow.optionId, reason: vscode.l10n.t('the acp.permissions setting, which allows reads inside the workspace') };
      }
    }
    const level = this.levels.get({ agent, sessionId: request.chatSessionId });
    const allowed = levelAnswer(level, call, options, roots);
    if (allowed) {
      this.log.info(`answered "${allowed.name}" to ${agent}'s request ${preview(call.title)} by the chat's permission level "${LEVEL_NAMES[level]}"`);
      return { optionId: allowed.optionId, reason: vscode.l10n.t('the permission level \u201c{0}\u201d', levelName(level)) };
    }
    return undefined;
  }

  private learn(agent: string, request: PermissionContext, option: S.PermissionOption): void {
    // An "always" answer to a plan approval could never apply: no rule allows one.
    if (isPlanApproval(request.call)) return;
    const rule = ruleFromAnswer({ agent, kind: request.call.kind, title: request.call.title }, option, new Date());
    if (!rule) return;
    const scope = this.settings().remember;
    void this.rules.add(rule, scope, request.chatSessionId).then(() => {
      this.log.info(`Remembered for ${SCOPE_NAMES[scope]}: ${describeRule(rule, english)}.`);
      vscode.window.setStatusBarMessage(
        vscode.l10n.t('$(shield) Remembered for {0}: {1}.', scopeName(scope), describeRule(rule, vscode.l10n.t)),
        8000,
      );
    });
  }

  /** "ACP: Manage Permission Rules…": review the rules and revoke the ones picked. */
  async manage(): Promise<void> {
    const rules = this.rules.list();
    if (rules.length === 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('There are no permission rules. A rule is made when you answer an agent with an "always" option.'),
      );
      return;
    }
    const picks = await vscode.window.showQuickPick(
      rules.map((rule) => ({
        label: describeRule(rule, vscode.l10n.t),
        description: scopeName(rule.scope),
        detail: rule.created ? vscode.l10n.t('Since {0}', new Date(rule.created).toLocaleString()) : undefined,
        rule,
      })),
      {
        ignoreFocusOut: true,
        title: vscode.l10n.t('Permission Rules'),
        placeHolder: vscode.l10n.t('Select the rules to revoke, then press Enter'),
        canPickMany: true,
        matchOnDescription: true,
      },
    );
    if (!picks || picks.length === 0) return;
    for (const pick of picks) await this.rules.revoke(pick.rule as ScopedRule);
    this.log.info(`revoked: ${picks.map((p) => describeRule(p.rule, english)).join('; ')}`);
    void vscode.window.showInformationMessage(
      picks.length === 1 ? vscode.l10n.t('Revoked: {0}.', picks[0]?.label ?? '') : vscode.l10n.t('Revoked {0} rules.', picks.length),
    );
  }

  private pendingCount(): number {
    let count = 0;
    for (const { session } of this.waiting.values()) count += session.model.permissions.length;
    return count;
  }

  /** Show Pending Permission Request: the chat of the request that has waited longest. */
  showPending(): void {
    this.oldestWaiting()?.reveal();
  }

  private oldestWaiting(): Waiting | undefined {
    let oldest: { waiting: Waiting; id: number } | undefined;
    for (const waiting of this.waiting.values()) {
      const first = waiting.session.model.permissions[0];
      if (first && (!oldest || first.id < oldest.id)) oldest = { waiting, id: first.id };
    }
    return oldest?.waiting;
  }

  private updateStatus(): void {
    const count = this.pendingCount();
    if (count === 0) {
      this.status.hide();
      this.arrivedInBackground = false;
      return;
    }
    this.status.text = `$(bell-dot) ${count}`;
    this.status.tooltip =
      count === 1
        ? vscode.l10n.t('An agent is waiting for your permission. Click to show the chat.')
        : vscode.l10n.t('{0} permission requests are waiting. Click to show the oldest.', count);
    this.status.accessibilityInformation = {
      label: count === 1 ? vscode.l10n.t('1 permission request waiting') : vscode.l10n.t('{0} permission requests waiting', count),
    };
    this.status.show();
  }

  /** VS Code came back to the foreground while a request that arrived in the background is still waiting. */
  private welcomeBack(): void {
    if (!this.arrivedInBackground) return;
    this.arrivedInBackground = false;
    const waiting = this.oldestWaiting();
    if (!waiting) return;
    const count = this.pendingCount();
    const message =
      count === 1
        ? vscode.l10n.t('While VS Code was in the background, {0} is waiting for your permission.', waiting.agent)
        : vscode.l10n.t('While VS Code was in the background, {0} permission requests are waiting.', count);
    const showChat = vscode.l10n.t('Show Chat');
    void vscode.window.showWarningMessage(message, showChat).then((pick) => {
      if (pick === showChat) waiting.reveal();
    });
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

function insideWorkspace(call: ToolCallState, roots: readonly string[]): boolean {
  return call.locations.length > 0 && call.locations.every((l) => checkPath(l.path, roots).kind === 'inside');
}

/** Buttons need distinct labels; agents rarely repeat a name, but if one does, number the repeats. */
function uniqueLabels(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw) => {
    const name = raw.trim() || vscode.l10n.t('Option');
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : vscode.l10n.t('{0} ({1})', name, count);
  });
}

/** A plan to approve, rendered: an untitled Markdown document, shown as its preview beside the chat. */
async function showMarkdown(text: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ content: text, language: 'markdown' });
  await vscode.commands.executeCommand('markdown.showPreviewToSide', document.uri);
}

/** What the chat says when the level and the agent's own mode meet (levelModes.ts). */
const LEVEL_WORDS: LevelWords = {
  lowered: (agent, from, level, to) =>
    vscode.l10n.t(
      '{0} started in its mode "{1}", which approves edits or commands by itself. This chat is at {2}, so {0} now runs in its mode "{3}" and asks you first.',
      agent,
      from,
      levelName(level),
      to,
    ),
  raised: (agent, mode, level) =>
    vscode.l10n.t(
      '{0} is now in its mode "{1}", which approves by itself, so this chat\'s permission level is now {2}.',
      agent,
      mode,
      levelName(level),
    ),
};
