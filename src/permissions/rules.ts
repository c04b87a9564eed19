// The permission rules the client keeps. When the user answers with an "always" option, the answer becomes a rule
// for that agent and that kind of tool call (and, for commands, that command). The next matching request is
// answered with the matching option. Pure: no `vscode`; the stores are passed in. Rules are facts: the host words
// them (ruleText.ts).
import type * as S from '../acp/schema.gen';

export type RuleScope = 'session' | 'workspace' | 'global';
export type RuleDecision = 'allow' | 'reject';

export interface PermissionRule {
  readonly agent: string;
  readonly kind: S.ToolKind;
  /** Only for `execute`: one command's rule does not cover another command. */
  readonly title?: string;
  readonly decision: RuleDecision;
  /** ISO time, for the list the user reviews. */
  readonly created: string;
}

export interface ScopedRule extends PermissionRule {
  readonly scope: RuleScope;
  /** For session rules. */
  readonly sessionId?: string;
}

/** Where workspace and global rules persist (VS Code's workspace and global state). */
export interface RuleStore {
  load(scope: 'workspace' | 'global'): readonly PermissionRule[];
  save(scope: 'workspace' | 'global', rules: readonly PermissionRule[]): Promise<void>;
}

/** What a rule is matched on. */
export interface RuleSubject {
  readonly agent: string;
  readonly kind: S.ToolKind;
  readonly title: string;
}

const SCOPES_BY_PRECEDENCE: readonly RuleScope[] = ['session', 'workspace', 'global'];

export class PermissionRules {
  private readonly sessions = new Map<string, PermissionRule[]>();

  constructor(private readonly store: RuleStore) {}

  /** The narrowest rule that covers the request: a session rule over a workspace rule over a global one. */
  find(subject: RuleSubject, sessionId: string): ScopedRule | undefined {
    for (const scope of SCOPES_BY_PRECEDENCE) {
      const rule = this.rules(scope, sessionId).find((r) => covers(r, subject));
      if (rule) return { ...rule, scope, ...(scope === 'session' ? { sessionId } : {}) };
    }
    return undefined;
  }

  /** Records a rule, replacing one for the same thing in the same scope. */
  async add(rule: PermissionRule, scope: RuleScope, sessionId: string): Promise<void> {
    const kept = this.rules(scope, sessionId).filter((r) => !sameSubject(r, rule));
    await this.put(scope, sessionId, [...kept, rule]);
  }

  /** Every rule, session rules first. */
  list(): ScopedRule[] {
    const session = [...this.sessions].flatMap(([sessionId, rules]) => rules.map((r) => ({ ...r, scope: 'session' as const, sessionId })));
    const stored = (['workspace', 'global'] as const).flatMap((scope) => this.store.load(scope).map((r) => ({ ...r, scope })));
    return [...session, ...stored];
  }

  async revoke(rule: ScopedRule): Promise<void> {
    const sessionId = rule.sessionId ?? '';
    const kept = this.rules(rule.scope, sessionId).filter((r) => !(sameSubject(r, rule) && r.decision === rule.decision));
    await this.put(rule.scope, sessionId, kept);
  }

  /** A closed session's rules go with it: `agent`'s only, as another agent's session may have the same id. */
  forgetSession(sessionId: string, agent: string): void {
    const others = (this.sessions.get(sessionId) ?? []).filter((r) => r.agent !== agent);
    if (others.length > 0) this.sessions.set(sessionId, others);
    else this.sessions.delete(sessionId);
  }

  private rules(scope: RuleScope, sessionId: string): readonly PermissionRule[] {
    return scope === 'session' ? (this.sessions.get(sessionId) ?? []) : this.store.load(scope);
  }

  private async put(scope: RuleScope, sessionId: string, rules: PermissionRule[]): Promise<void> {
    if (scope === 'session') {
      if (rules.length > 0) this.sessions.set(sessionId, rules);
      else this.sessions.delete(sessionId);
    } else {
      await this.store.save(scope, rules);
    }
  }
}

/** The rule an answer makes: only the "always" kinds make one. */
export function ruleFromAnswer(subject: RuleSubject, option: S.PermissionOption, now: Date): PermissionRule | undefined {
  const decision: RuleDecision | undefined = option.kind === 'allow_always' ? 'allow' : option.kind === 'reject_always' ? 'reject' : undefined;
  if (!decision) return undefined;
  return {
    agent: subject.agent,
    kind: subject.kind,
    ...(subject.kind === 'execute' ? { title: subject.title } : {}),
    decision,
    created: now.toISOString(),
  };
}

/** The option that carries out a decision: the "always" option, else the "once" one. None means: ask the user. */
export function optionFor(options: readonly S.PermissionOption[], decision: RuleDecision): S.PermissionOption | undefined {
  const [always, once] = decision === 'allow' ? (['allow_always', 'allow_once'] as const) : (['reject_always', 'reject_once'] as const);
  return options.find((o) => o.kind === always) ?? options.find((o) => o.kind === once);
}

function covers(rule: PermissionRule, subject: RuleSubject): boolean {
  return rule.agent === subject.agent && rule.kind === subject.kind && (rule.title === undefined || rule.title === subject.title);
}

function sameSubject(a: PermissionRule, b: PermissionRule): boolean {
  return a.agent === b.agent && a.kind === b.kind && a.title === b.title;
}

/** Stored rules come back from VS Code's state as plain JSON; anything malformed is dropped, not trusted. */
export function parseStoredRules(value: unknown): PermissionRule[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (!item || typeof item !== 'object') return [];
    const r = item as Record<string, unknown>;
    if (typeof r['agent'] !== 'string' || typeof r['kind'] !== 'string' || (r['decision'] !== 'allow' && r['decision'] !== 'reject')) return [];
    if (r['title'] !== undefined && typeof r['title'] !== 'string') return [];
    const rule: PermissionRule = {
      agent: r['agent'],
      kind: r['kind'] as S.ToolKind,
      ...(typeof r['title'] === 'string' ? { title: r['title'] } : {}),
      decision: r['decision'],
      created: typeof r['created'] === 'string' ? r['created'] : '',
    };
    return [rule];
  });
}
