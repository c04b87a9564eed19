// The agent's sign-in state and accounts, read leniently and bounded: the accounts are display information only,
// the schema says, so they are shown and never logged. Two carriers:
// - the unstable `auth/status` and `auth/status_update`, where the agent advertises `auth.status`;
// - the maintained adapters' extension `_auth/status_update {authStatus: {kind, label, detail?, account?}}`
//   (claude-agent-acp and codex-acp push it on their own, per connection, and mark it with
//   `agentCapabilities._meta.authStatus`). `kind` is `none` when signed out, else `account`, `api_key`, `gateway`,
//   `external` and whatever they add.
import { z } from 'zod';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { clip } from './text';
import type * as S from './schema.gen';

/** The states the schema names; any other value counts as `unknown`, as it asks. */
type AuthState = 'authenticated' | 'unauthenticated' | 'not_required' | 'unknown';

export interface AuthAccount {
  readonly label: string;
  readonly name?: string;
  readonly email?: string;
  readonly organization?: string;
  /** In effect (the agent uses it by default); undefined when the agent does not say. */
  readonly active?: boolean;
}

export interface AuthStatus {
  readonly state: AuthState;
  readonly accounts: readonly AuthAccount[];
}

/** Accounts kept of one answer, and the characters of each field. */
const MAX_ACCOUNTS = 10;
const MAX_FIELD = 200;

/** Change events are coalesced over this long. */
const FIRE_MS = 100;

const STATES: ReadonlySet<string> = new Set(['authenticated', 'unauthenticated', 'not_required']);

/** Control characters and line breaks: an account is shown on one line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** An account's text as shown: one line, no control characters, no `$(icon)` for VS Code to render, bounded. */
const shown = (text: string) => clip(text.replace(CONTROL, ' ').replace(/\$\(/g, '$\u200b(').trim(), MAX_FIELD);
const field = z.string().transform(shown).nullish().catch(undefined);
const Account = z.looseObject({
  label: z.string().transform(shown),
  name: field,
  email: field,
  organization: field,
  active: z.boolean().nullish().catch(undefined),
});

/** The params of `auth/status_update`, and the answer to `auth/status`: `state` is required. */
export const AuthStatusMessage = z.looseObject({ state: z.string(), accounts: z.array(z.unknown()).nullish().catch(undefined) });

/** The params of the adapters' `_auth/status_update`: `authStatus.kind` and `label` are required. */
export const AdapterAuthStatusMessage = z.looseObject({
  authStatus: z.looseObject({
    kind: z.string().max(100),
    label: z.string(),
    detail: z.string().nullish().catch(undefined),
    account: z
      .looseObject({ email: z.string().nullish().catch(undefined) })
      .nullish()
      .catch(undefined),
  }),
});

/** The adapters' status as the client's: signed out for `none`, else one account in effect, named by its label. */
export function readAdapterAuthStatus(message: z.output<typeof AdapterAuthStatusMessage>): AuthStatus {
  const { kind, label, detail, account } = message.authStatus;
  if (kind === 'none') return { state: 'unauthenticated', accounts: [] };
  const email = account?.email ? shown(account.email) : '';
  const name = detail ? shown(detail) : '';
  return {
    state: 'authenticated',
    accounts: [{ label: shown(label) || shown(kind), ...(name ? { name } : {}), ...(email ? { email } : {}), active: true }],
  };
}

/** What is shown of a status: its state (unknown values as `unknown`) and the accounts that validate, at most 10. */
export function readAuthStatus(message: z.output<typeof AuthStatusMessage>): AuthStatus {
  const accounts: AuthAccount[] = [];
  for (const raw of message.accounts ?? []) {
    if (accounts.length === MAX_ACCOUNTS) break;
    const parsed = Account.safeParse(raw);
    if (!parsed.success || parsed.data.label === '') continue;
    const { label, name, email, organization, active } = parsed.data;
    accounts.push({
      label,
      ...(name ? { name } : {}),
      ...(email ? { email } : {}),
      ...(organization ? { organization } : {}),
      ...(active != null ? { active } : {}),
    });
  }
  return { state: STATES.has(message.state) ? (message.state as AuthState) : 'unknown', accounts };
}

/** The latest status an agent reported, by answer or by notification. */
export class AuthStatusTracker {
  private latest: AuthStatus | undefined;
  private readonly emitter = new Emitter<void>();
  /** Fires when the status changes. */
  readonly onDidChange: Event<void> = this.emitter.event;

  /** Undefined until the agent said (or when it does not advertise `auth.status`). */
  get status(): AuthStatus | undefined {
    return this.latest;
  }

  set(status: AuthStatus): void {
    if (this.latest && JSON.stringify(this.latest) === JSON.stringify(status)) return;
    this.latest = status;
    // At most one change event per FIRE_MS: an agent that flips its state cannot flood what shows it.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.emitter.fire();
    }, FIRE_MS);
  }

  private timer: NodeJS.Timeout | undefined;

  dispose(): void {
    clearTimeout(this.timer);
    this.emitter.dispose();
  }
}

/** A sign-in method that the client runs in a terminal: the agent's own command with the method's args and env. */
export type TerminalAuthMethod = Extract<S.AuthMethod, { type: 'terminal' }>;

export function isTerminalAuth(method: S.AuthMethod): method is TerminalAuthMethod {
  return 'type' in method && method.type === 'terminal';
}
