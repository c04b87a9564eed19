// A chat's choices of its agent's own settings (mode, model, config options): a new chat starts with the agent's
// defaults (acp.agentDefaults), and a chat keeps its own across a reload and a reopen, also when the agent opens a
// new session in its place or forgets them. Kept per agent and session in the workspace's state, as they change.
// Only values the agent offers are set (acp/choices.ts); a value it does not offer is said once, in the chat and the
// log, and the chat goes on with the agent's own.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { AgentSession } from '../acp/agentClient';
import { currentChoices, planChoices, type Choices, type Missing } from '../acp/choices';
import { errorMessage } from '../acp/errors';
import { modeName } from '../acp/quirks';
import type { Logger } from '../acp/log';
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
   * `tell` says in the chat what could not be applied.
   */
  watch(session: AgentSession, agent: string, from: ChoicesFrom | undefined, tell: (text: string) => void): vscode.Disposable {
    let applying = true;
    const keep = () => {
      if (!applying) void this.keep(agent, session.sessionId, currentChoices(session.model, modeName(session.client.quirks)));
    };
    const subscription = session.model.onDidChange((change) => {
      if (change.type === 'mode' || change.type === 'config') keep();
    });
    void this.apply(session, agent, from, tell).finally(() => {
      applying = false;
      keep();
    });
    return subscription;
  }

  private async apply(session: AgentSession, agent: string, from: ChoicesFrom | undefined, tell: (text: string) => void): Promise<void> {
    const wanted = from && this.wanted(agent, from, tell);
    if (!wanted) return;
    const { calls, missing } = planChoices(session.model, wanted, modeName(session.client.quirks));
    const source = 'defaults' in from ? 'acp.agentDefaults' : vscode.l10n.t('this chat');
    for (const m of missing) this.once(`${agent}\n${m.what}\n${String(m.value)}`, () => tell(missingText(agent, m, source)), m, agent);
    for (const call of calls) {
      try {
        if (call.kind === 'mode') await session.setMode(call.modeId);
        else await session.setConfigOption(call.id, call.value);
      } catch (error) {
        this.log.warn(
          `[chat] ${agent} did not take ${call.kind === 'mode' ? `the mode ${call.modeId}` : `${call.id} = ${String(call.value)}`}: ${errorMessage(error)}`,
        );
      }
    }
    if (calls.length > 0)
      this.log.info(`[chat] ${agent}: ${calls.length} choice(s) set from ${'defaults' in from ? 'acp.agentDefaults' : 'the chat before'}`);
  }

  private wanted(agent: string, from: ChoicesFrom, tell: (text: string) => void): Choices | undefined {
    if ('sessionId' in from) return this.kept()[keyOf(agent, from.sessionId)];
    const { defaults, problem } = readAgentDefaults(agent);
    if (problem && !this.reported.has(problem)) {
      this.reported.add(problem);
      this.log.warn(`[settings] ${problem}`);
      tell(problem);
    }
    return defaults;
  }

  private once(key: string, say: () => void, missing: Missing, agent: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.warn(`[chat] ${agent} does not offer ${missing.what} "${String(missing.value)}"; the chat goes on with the agent's own`);
    say();
  }

  private async keep(agent: string, sessionId: string, choices: Choices): Promise<void> {
    const all = { ...this.kept() };
    const key = keyOf(agent, sessionId);
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
