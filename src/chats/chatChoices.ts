// A chat's choices of its agent's own settings (mode, model, config options): a new chat starts with the agent's
// defaults (acp.agentDefaults), and a chat keeps its own across a reload and a reopen, also when the agent opens a
// new session in its place or forgets them. Kept per agent and session in the workspace's state, bounded, as they
// change. Only values the agent offers are set (acp/choices.ts); a value it does not offer is said once, in the chat
// and the log, and the chat goes on with the agent's own. What a permission level sets in the agent itself
// (claude-agent-acp's bypassPermissions, Copilot CLI's allow_all) is never kept or applied as a choice: the level
// is the chat's, and is confirmed as a level.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { AgentSession } from '../acp/agentClient';
import { boundChoices, currentChoices, planChoices, withoutLevelSettings, type ChoiceCall, type Choices, type Missing } from '../acp/choices';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { levelSettings, modeName } from '../acp/quirks';
import { readAgentDefaults } from '../settings/agentDefaults';

const STORE_KEY = 'acp.chatChoices';
const Kept = z.record(
  z.string(),
  z.object({
    mode: z.string().optional(),
    model: z.string().optional(),
    options: z.record(z.string(), z.union([z.string(), z.boolean()])).optional(),
  }),
);
/** Chats whose choices are kept; the oldest go first. */
const MAX_KEPT = 500;
/** A change of the agent's settings is kept after this quiet time (an agent may send many). */
const KEEP_DELAY_MS = 500;
/** How long one call that sets a choice may take before the rest go on without it. */
const CALL_TIMEOUT_MS = 10_000;
/** Values an agent does not offer, said in the chat per start; the rest go to the log. */
const MISSING_TOLD = 3;
/** What was said once, remembered up to this many; then it starts over. */
const MAX_REPORTED = 1000;

/** Where a session's choices come from: the agent's defaults (a new chat), or the chat's earlier session. */
export type ChoicesFrom = { readonly defaults: true } | { readonly sessionId: string };

export class ChatChoices {
  /** What was said once: the setting's problems, and values an agent does not offer. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly memento: vscode.Memento,
    private readonly log: Logger,
  ) {}

  /**
   * `session` of a chat with `agent` started: it gets the choices `from` says, and from then on its own are kept.
   * `tell` says in the chat what could not be applied. `ready` settles once the choices were applied.
   */
  watch(
    session: AgentSession,
    agent: string,
    from: ChoicesFrom | undefined,
    tell: (text: string) => void,
  ): { readonly subscription: vscode.Disposable; readonly ready: Promise<void> } {
    const state = { applying: true, timer: undefined as NodeJS.Timeout | undefined };
    const keep = () => {
      clearTimeout(state.timer);
      state.timer = setTimeout(() => {
        state.timer = undefined;
        void this.keep(agent, session);
      }, KEEP_DELAY_MS);
    };
    const listening = session.model.onDidChange((change) => {
      if (change.type !== 'mode' && change.type !== 'config') return;
      if (!state.applying) keep();
    });
    const ready = this.apply(session, agent, from, tell).finally(() => {
      state.applying = false;
      keep();
    });
    // A change not kept yet is kept as the chat closes.
    const dispose = () => {
      listening.dispose();
      if (state.timer === undefined || state.applying) return;
      clearTimeout(state.timer);
      void this.keep(agent, session);
    };
    return { subscription: { dispose }, ready };
  }

  private async apply(session: AgentSession, agent: string, from: ChoicesFrom | undefined, tell: (text: string) => void): Promise<void> {
    const given = from && this.wanted(agent, from, tell);
    if (!from || !given) return;
    const fromDefaults = 'defaults' in from;
    const settings = levelSettings(session.client.initialized.agentInfo);
    const wanted = withoutLevelSettings(given, settings);
    if (fromDefaults && JSON.stringify(wanted) !== JSON.stringify(given)) {
      const problem = vscode.l10n.t(
        'acp.agentDefaults names for {0} a setting that a permission level sets; it is left out. Use "permissionLevel" instead.',
        agent,
      );
      this.once(`${agent}\nlevel`, () => tell(problem), `[settings] ${problem}`);
    }
    const name = modeName(session.client.quirks);
    const { missing } = planChoices(session.model, wanted, name);
    const source = fromDefaults ? 'acp.agentDefaults' : vscode.l10n.t('this chat');
    missing.forEach((m, i) => {
      const line = `[chat] ${agent} does not offer ${m.what} "${String(m.value)}"; the chat goes on with the agent's own`;
      this.once(`${agent}\n${m.what}\n${String(m.value)}`, () => i < MISSING_TOLD && tell(missingText(agent, m, source)), line);
    });
    let set = 0;
    let kept = 0;
    // Each setting as it was when the chat's choices began: one that changes meanwhile (the user's pick, or the
    // agent's) stands. Planned again before each call, so nothing is set twice or over that change.
    const start = new Map(planChoices(session.model, wanted, name).calls.map((c) => [settingOf(c), valueOf(session, c)]));
    for (let call = this.next(session, wanted, name); call; call = this.next(session, wanted, name, call)) {
      if (start.has(settingOf(call)) && valueOf(session, call) !== start.get(settingOf(call))) {
        kept++;
        continue;
      }
      try {
        await Promise.race([
          call.kind === 'mode' ? session.setMode(call.modeId) : session.setConfigOption(call.id, call.value),
          new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CALL_TIMEOUT_MS / 1000} s`)), CALL_TIMEOUT_MS)),
        ]);
        set++;
      } catch (error) {
        this.log.warn(`[chat] ${agent} did not take ${describe(call)}: ${errorMessage(error)}`);
      }
    }
    if (set > 0) this.log.info(`[chat] ${agent}: ${set} choice(s) set from ${fromDefaults ? 'acp.agentDefaults' : 'the chat before'}`);
    if (kept > 0) this.log.info(`[chat] ${agent}: ${kept} setting(s) changed while the chat's choices were applied; those changes stand`);
  }

  /** The next call that `wanted` needs, after `done` (each is tried once). */
  private next(session: AgentSession, wanted: Choices, name: (id: string) => string, done?: ChoiceCall): ChoiceCall | undefined {
    const tried = (this.tried.get(session) ?? new Set<string>()).add(done ? describe(done) : '');
    this.tried.set(session, tried);
    return planChoices(session.model, wanted, name).calls.find((c) => !tried.has(describe(c)));
  }

  private readonly tried = new WeakMap<AgentSession, Set<string>>();

  private wanted(agent: string, from: ChoicesFrom, tell: (text: string) => void): Choices | undefined {
    if ('sessionId' in from) return this.kept()[keyOf(agent, from.sessionId)];
    const { defaults, problem } = readAgentDefaults(agent);
    if (problem) this.once(problem, () => tell(problem), `[settings] ${problem}`);
    return defaults;
  }

  /** Says something once (the log line too); what was said is remembered, bounded. */
  private once(key: string, say: () => void, line: string): void {
    if (this.reported.has(key)) return;
    if (this.reported.size >= MAX_REPORTED) this.reported.clear();
    this.reported.add(key);
    this.log.warn(line);
    say();
  }

  private async keep(agent: string, session: AgentSession): Promise<void> {
    const own = currentChoices(session.model, modeName(session.client.quirks));
    const choices = boundChoices(withoutLevelSettings(own, levelSettings(session.client.initialized.agentInfo)));
    const all = { ...this.kept() };
    const key = keyOf(agent, session.sessionId);
    if (JSON.stringify(all[key]) === JSON.stringify(choices)) return;
    delete all[key];
    all[key] = choices;
    const names = Object.keys(all);
    for (const old of names.slice(0, Math.max(0, names.length - MAX_KEPT))) delete all[old];
    await this.memento.update(STORE_KEY, all);
  }

  private kept(): Record<string, Choices> {
    const value = Kept.safeParse(this.memento.get<unknown>(STORE_KEY));
    return value.success ? value.data : {};
  }
}

const keyOf = (agent: string, sessionId: string) => `${agent}\n${sessionId}`;

/** Which setting a call sets, and that setting's value in the session now. */
const settingOf = (call: ChoiceCall) => (call.kind === 'mode' ? 'mode' : `option:${call.id}`);
function valueOf(session: AgentSession, call: ChoiceCall): unknown {
  return call.kind === 'mode' ? session.model.modes?.currentModeId : session.model.configOptions.find((o) => o.id === call.id)?.currentValue;
}

const describe = (call: ChoiceCall) => (call.kind === 'mode' ? `the mode ${call.modeId}` : `${call.id} = ${String(call.value)}`);

function missingText(agent: string, missing: Missing, source: string): string {
  const value = String(missing.value);
  switch (missing.what) {
    case 'mode':
      return vscode.l10n.t('{0} does not offer the mode "{1}" that {2} names, so the chat uses its own.', agent, value, source);
    case 'model':
      return vscode.l10n.t('{0} does not offer the model "{1}" that {2} names, so the chat uses its own.', agent, value, source);
    default:
      return vscode.l10n.t(
        '{0} does not offer "{1}" for its setting "{2}" that {3} names, so the chat uses its own.',
        agent,
        value,
        missing.what,
        source,
      );
  }
}
