// Permission levels, per chat (what each answers: levelRules.ts). A level belongs to one chat and is kept with it
// across a reload, in the workspace's state; it becomes a default only through `acp.permissions.defaultLevel` or an
// agent's `acp.agentDefaults` entry (machine settings), whose "Allow all" is confirmed once per window before it applies. In Restricted Mode only Ask
// exists. Questions (elicitations) never come this way at all.
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import { isPermissionLevel, type PermissionLevel } from './levelRules';

export { PERMISSION_LEVELS, type PermissionLevel } from './levelRules';

/** The level's name as the user reads it. */
export function levelName(level: PermissionLevel): string {
  switch (level) {
    case 'ask':
      return vscode.l10n.t('Ask');
    case 'autoApproveEdits':
      return vscode.l10n.t('Auto-approve edits');
    case 'agentDecides':
      return vscode.l10n.t('Agent decides');
    case 'allowAll':
      return vscode.l10n.t('Allow all');
  }
}

const STORE_KEY = 'acp.permissionLevels';
/** Chats whose level is kept; the oldest go first. */
const MAX_KEPT = 500;

/** Where a chat's level is kept: by agent and session. */
export interface LevelKey {
  readonly agent: string;
  readonly sessionId: string;
}

const keyOf = ({ agent, sessionId }: LevelKey) => `${agent}\n${sessionId}`;

/** The levels of this workspace's chats, kept in its state, and the default a new chat starts with. */
export class PermissionLevels implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<LevelKey>();
  /** A chat's level changed. */
  readonly onDidChange = this.emitter.event;
  /** The user's answer to "Allow all" as a default, asked once per window and setting. */
  private readonly allowAllDefault = new Map<string, Promise<boolean>>();

  constructor(
    private readonly memento: vscode.Memento,
    private readonly log: Logger,
    /** A new chat's level with `agent`, and the setting that says so. */
    private readonly defaultLevel: (agent: string) => { readonly level: PermissionLevel; readonly setting: string },
    /** Asks whether new chats may start at Allow all, as `setting` says. */
    private readonly confirmAllowAll: (setting: string) => Promise<boolean>,
    /** Asks whether one chat may go to Allow all, which the user just picked. */
    private readonly confirmChat: (agent: string) => Promise<boolean> = confirmAllowAllChat,
  ) {}

  /**
   * The user picked `level` for a chat (its header, or Set Permission Level…). Going to Allow all is confirmed
   * first: a keyboard moving through the header's list passes it on the way. False when the user kept the level.
   */
  async choose(key: LevelKey, level: PermissionLevel): Promise<boolean> {
    if (level === 'allowAll' && this.get(key) !== 'allowAll' && this.available) {
      const allowed = await this.confirmChat(key.agent);
      this.log.info(
        allowed
          ? `a chat with ${key.agent} was set to "Allow all", as confirmed`
          : `a chat with ${key.agent} was kept at its level: "Allow all" not confirmed`,
      );
      if (!allowed) {
        this.emitter.fire(key); // the header shows the level it has again
        return false;
      }
    }
    await this.set(key, level);
    return true;
  }

  /** Whether levels other than Ask exist here: not in Restricted Mode. */
  get available(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The chat's level: Ask in Restricted Mode, whatever was kept. */
  get(key: LevelKey): PermissionLevel {
    if (!this.available) return 'ask';
    const kept = this.kept()[keyOf(key)];
    return isPermissionLevel(kept) ? kept : 'ask';
  }

  /** Whether the chat has a level of its own (set, or taken from the default when it started). */
  has(key: LevelKey): boolean {
    return keyOf(key) in this.kept();
  }

  async set(key: LevelKey, level: PermissionLevel): Promise<void> {
    if (level !== 'ask' && !this.available) return;
    const levels = { ...this.kept() };
    delete levels[keyOf(key)];
    levels[keyOf(key)] = level;
    const names = Object.keys(levels);
    for (const old of names.slice(0, Math.max(0, names.length - MAX_KEPT))) delete levels[old];
    await this.memento.update(STORE_KEY, levels);
    this.emitter.fire(key);
  }

  /** A chat goes on in a new session (its agent could not reopen the old one): the new one keeps the chat's level. */
  async carry(from: LevelKey, to: LevelKey): Promise<void> {
    if (keyOf(from) === keyOf(to) || this.has(to) || !this.has(from)) return;
    await this.set(to, this.get(from));
  }

  /** A chat's session started: it keeps its own level, or a new one takes the default (Allow all once confirmed). */
  async started(key: LevelKey): Promise<PermissionLevel> {
    if (this.has(key)) return this.get(key);
    const given = this.defaultLevel(key.agent);
    let level = given.level;
    if (level === 'allowAll') {
      let confirmed = this.allowAllDefault.get(given.setting);
      if (!confirmed) this.allowAllDefault.set(given.setting, (confirmed = this.confirmDefault(given.setting)));
      if (!(await confirmed)) level = 'ask';
      // The user may have picked a level in the chat's header meanwhile: that one stands.
      if (this.has(key)) return this.get(key);
    }
    if (level !== 'ask') await this.set(key, level);
    return this.get(key);
  }

  private async confirmDefault(setting: string): Promise<boolean> {
    this.log.info(`${setting} is "Allow all": asking whether new chats in this window may start there`);
    const allowed = await this.confirmAllowAll(setting);
    this.log.info(
      allowed
        ? `new chats in this window start at "Allow all", as ${setting} says and the user confirmed`
        : `new chats in this window start at "Ask": "Allow all" as ${setting} says was not confirmed`,
    );
    return allowed;
  }

  private kept(): Record<string, unknown> {
    const value = this.memento.get<unknown>(STORE_KEY);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** Asks whether to allow all: the first choice (what Enter takes) allows, the second keeps asking. */
async function confirmAllowAll(title: string, placeHolder: string, allow: vscode.QuickPickItem, keep: vscode.QuickPickItem): Promise<boolean> {
  const picked = await vscode.window.showQuickPick([allow, keep], { title, placeHolder, ignoreFocusOut: true });
  return picked === allow;
}

/**
 * Asks whether new chats may start at Allow all as `setting` (acp.permissions.defaultLevel, or an agent's entry of
 * acp.agentDefaults) says. The user chose that setting, so Enter confirms it; Escape, or Ask, keeps new chats asking.
 */
export function confirmAllowAllDefault(setting: string): Promise<boolean> {
  return confirmAllowAll(
    vscode.l10n.t('Your setting {0} makes new chats allow every permission request', setting),
    vscode.l10n.t('Agents will edit files and run commands without asking. Allow all in new chats of this window?'),
    { label: vscode.l10n.t('Allow All in New Chats'), detail: vscode.l10n.t('As {0} says', setting) },
    { label: vscode.l10n.t('Ask in New Chats'), detail: vscode.l10n.t('Each chat can still be set in its header') },
  );
}

/** Asks whether one chat may allow every permission request; Enter confirms what the user picked. */
function confirmAllowAllChat(agent: string): Promise<boolean> {
  return confirmAllowAll(
    vscode.l10n.t('Allow every permission request of {0} in this chat?', agent),
    vscode.l10n.t(
      'The agent will edit files and run commands without asking; plan approvals and paths outside the workspace still ask, unless the agent has a mode of its own for this (Claude Code, Codex, Copilot CLI), which Allow all turns on.',
    ),
    { label: vscode.l10n.t('Allow All in This Chat') },
    { label: vscode.l10n.t('Keep the Current Level') },
  );
}
