// The running agents, one process per configured agent, shared by all of its chats. The manager lives as long as
// the extension; each AgentClient lives as long as its process. A process is started on first use and stopped when
// its last session closes, or when the user stops it. No agent starts in a workspace the user has not trusted.
import * as vscode from 'vscode';
import { accountWords } from './account';
import { AgentClient } from '../acp/agentClient';
import { AgentStartFailure } from '../acp/startFailure';
import type { HostServices } from '../acp/clientHandler';
import { endedByClient } from '../acp/errors';
import { tagged, type Logger } from '../acp/log';
import { activeQuirks, agentQuirks, type AgentQuirks } from '../acp/quirks';
import type * as S from '../acp/schema.gen';
import type { LineTracer } from '../acp/ndjsonWriter';
import { askedProtocol, type AgentConfig } from '../settings/config';
import type { AgentCatalog } from './catalog';
import { DisposableStore } from '../common/disposables';
import type { AgentTokens } from './tokens';
import { failureText } from '../common/failureText';

/** Where an agent is: starting, running (its client), failed to start (why), or not running. */
export type AgentStatus =
  | { readonly phase: 'starting' }
  | { readonly phase: 'running'; readonly client: AgentClient }
  | { readonly phase: 'failed'; readonly error: string }
  | { readonly phase: 'stopped' };

/** Agents run commands and edit files, so Restricted Mode starts none. */
export class UntrustedWorkspaceError extends Error {
  override readonly name = 'UntrustedWorkspaceError';
  constructor() {
    super(vscode.l10n.t('this workspace is in Restricted Mode, and agents run commands and edit files, so none is started until you trust it'));
  }
}

interface Running {
  readonly config: AgentConfig;
  readonly client: Promise<AgentClient>;
}

export class AgentManager implements vscode.Disposable {
  /** Agents kept running by a hold (see hold()), with how many hold them. */
  private readonly holds = new Map<AgentClient, number>();
  private readonly running = new Map<string, Running>();
  /** Every live client, including one replaced in `running` after its settings changed. */
  private readonly subscriptions = new Map<AgentClient, DisposableStore>();
  private readonly statuses = new Map<string, AgentStatus>();
  private readonly statusEmitter = new vscode.EventEmitter<string>();
  /** Fires with an agent's name when its status changes. */
  readonly onDidChangeStatus = this.statusEmitter.event;
  /** The command of each live process, a replaced one included. */
  private readonly commands = new Map<AgentClient, string>();
  private readonly endEmitter = new vscode.EventEmitter<void>();
  /** Fires when any agent process has ended (one whose settings changed, too). */
  readonly onDidEndProcess = this.endEmitter.event;

  constructor(
    /**
     * What the host serves this agent (one instance per start, so per-agent state stays with its process). `quirks`
     * are the agent's, from what it said in `initialize` and the overrides in its entry; asked at each use, since
     * the services exist before the agent has answered.
     */
    private readonly services: (config: AgentConfig, quirks: () => AgentQuirks) => HostServices,
    private readonly clientInfo: S.Implementation,
    private readonly log: Logger,
    private readonly tracer: (agentName: string) => LineTracer,
    /** Which agents there are. */
    readonly catalog: AgentCatalog,
    /** The tokens of agents at a URL. */
    readonly tokens: AgentTokens,
  ) {}

  status(name: string): AgentStatus {
    return this.statuses.get(name) ?? { phase: 'stopped' };
  }

  /** The account the agent is signed in with, in words, while it runs and says (see account.ts). */
  account(name: string): string | undefined {
    return accountWords(this.client(name)?.auth.status);
  }

  /** The agent's client, if its process is up. */
  client(name: string): AgentClient | undefined {
    const status = this.status(name);
    return status.phase === 'running' ? status.client : undefined;
  }

  /** The agent's running client, or a new one. Concurrent callers share one start. */
  connect(config: AgentConfig, cwd: string): Promise<AgentClient> {
    if (!vscode.workspace.isTrusted) return Promise.reject(new UntrustedWorkspaceError());
    // A preset whose command line the user has not agreed to asks first (src/agents/presetConsent.ts).
    const settled = this.catalog.consent.settled(config);
    return settled ? this.start(settled, cwd) : this.catalog.consent.approve(config).then((approved) => this.start(approved, cwd));
  }

  private start(config: AgentConfig, cwd: string): Promise<AgentClient> {
    const existing = this.running.get(config.name);
    if (existing && sameCommand(existing.config, config)) return existing.client;
    const log = tagged(this.log, config.name);
    // Never the env: its values are often keys and tokens.
    log.info(`starting: ${[config.command, ...config.args].join(' ')}${envNames(config)}`);
    this.setStatus(config.name, { phase: 'starting' });
    let started: AgentClient | undefined;
    const quirks = () => agentQuirks(started?.initialized.agentInfo, { readMissingAsEmpty: config.readMissingAsEmpty });
    const services = this.services(config, quirks);
    const remote = config.url !== undefined;
    const client = this.tokens.target(config, cwd).then((target) =>
      AgentClient.start(target, services, {
        clientInfo: this.clientInfo,
        log,
        trace: this.tracer(config.name),
        // An agent on another machine runs commands here only when its entry allows it; it signs in by its own methods.
        terminals: !remote || config.terminals === true,
        terminalAuth: !remote,
        protocol: askedProtocol(config),
      }),
    );
    const entry: Running = { config, client };
    this.running.set(config.name, entry);
    this.record(config, client);
    client.then(
      (c) => {
        started = c;
        const info = c.initialized.agentInfo;
        const on = activeQuirks(quirks());
        log.info(
          `ready: ${info ? `${info.title ?? info.name} ${info.version}` : 'no agentInfo'}, protocol ${c.initialized.protocolVersion}` +
            (on.length > 0 ? `, quirks: ${on.join(', ')}` : ''),
        );
        if (this.running.get(config.name) === entry) this.setStatus(config.name, { phase: 'running', client: c });
        this.commands.set(c, config.command);
        this.subscriptions.set(
          c,
          new DisposableStore(
            c.onDidExit((end) => {
              if (this.unlist(config.name, entry)) {
                this.setStatus(config.name, endedByClient(end) ? { phase: 'stopped' } : { phase: 'failed', error: end.message });
              }
              this.subscriptions.get(c)?.dispose();
              this.subscriptions.delete(c);
              this.commands.delete(c);
              this.endEmitter.fire();
            }),
            // The account shown beside the agent follows its sign-in state.
            c.auth.onDidChange(() => this.statusEmitter.fire(config.name)),
            // And the account's limits, where it reports them (agents/quotaMeter.ts).
            c.quota.onDidChange(() => this.statusEmitter.fire(config.name)),
            c.onDidChangeSessions(() => {
              if (c.openSessions.length === 0 && !this.holds.has(c)) {
                log.info('its last chat closed; stopping it');
                void this.stopClient(config.name, entry, c);
              }
            }),
          ),
        );
      },
      (error: unknown) => {
        if (this.unlist(config.name, entry)) this.setStatus(config.name, { phase: 'failed', error: failureText(error) });
        this.endEmitter.fire();
      },
    );
    return client;
  }

  /** Stops the agent's process, if it runs; its chats see the end. Resolves once it has ended. */
  async stop(name: string): Promise<boolean> {
    const entry = this.running.get(name);
    if (!entry) return false;
    const client = await entry.client.catch(() => undefined);
    if (!client) return false;
    this.log.info(`[${name}] stopped by the user`);
    await this.stopClient(name, entry, client);
    return true;
  }

  private async stopClient(name: string, entry: Running, client: AgentClient): Promise<void> {
    if (this.unlist(name, entry)) this.setStatus(name, { phase: 'stopped' });
    await client.dispose(); // its exit drops the subscriptions
  }

  /** The next connect for this name starts a new process (unless a newer one is already listed). */
  private unlist(name: string, entry: Running): boolean {
    if (this.running.get(name) !== entry) return false;
    this.running.delete(name);
    return true;
  }

  private setStatus(name: string, status: AgentStatus): void {
    this.statuses.set(name, status);
    this.statusEmitter.fire(name);
  }

  /**
   * Keeps the agent running while the hold lasts, whether or not a chat uses it (an import, between the sessions it
   * opens and closes); disposing it stops the agent if nothing else uses it then.
   */
  hold(client: AgentClient): { dispose(): void } {
    this.holds.set(client, (this.holds.get(client) ?? 0) + 1);
    let held = true;
    return {
      dispose: () => {
        if (!held) return;
        held = false;
        const left = (this.holds.get(client) ?? 1) - 1;
        if (left > 0) this.holds.set(client, left);
        else this.holds.delete(client);
        void this.release(client);
      },
    };
  }

  /**
   * Stops an agent that no chat uses (one started to list its sessions, say). It is unlisted first, so the next
   * connect starts a new process instead of getting this one as it stops.
   */
  async release(client: AgentClient): Promise<void> {
    const entries = await Promise.all(
      [...this.running].map(async ([name, entry]) => ({ name, entry, client: await entry.client.catch(() => undefined) })),
    );
    if (client.hasExited || client.openSessions.length > 0 || this.holds.has(client)) return;
    for (const e of entries) if (e.client === client && this.unlist(e.name, e.entry)) this.setStatus(e.name, { phase: 'stopped' });
    await client.dispose();
  }

  /** The commands of every agent process that runs or is starting, one replaced after its settings changed included. */
  liveCommands(): string[] {
    return [...[...this.running.values()].map((r) => r.config.command), ...this.commands.values()];
  }

  /** Stops every agent and waits for their processes to end. */
  async stopAll(): Promise<void> {
    const starting = [...this.running.values()].map((r) => r.client.catch(() => undefined));
    this.running.clear();
    const started = await Promise.all(starting);
    const clients = new Set([...this.subscriptions.keys(), ...started.filter((c) => c !== undefined)]);
    await Promise.all([...clients].map((c) => c.dispose()));
  }

  dispose(): void {
    void this.stopAll();
    this.statusEmitter.dispose();
    this.endEmitter.dispose();
  }

  // ---- What "ACP: Export Diagnostics" reports. Kept together at the end of the class. ----------------------------

  /** The last few starts of each agent this session, by name, newest last: running, stopped or failed to start. */
  private readonly starts = new Map<string, AgentStart[]>();
  /** Remembers a start of the agent (the last three per agent) for the diagnostics. */
  private record(config: AgentConfig, client: Promise<AgentClient>): void {
    const start: AgentStart = { config, startedAt: new Date(), client, ready: undefined, end: undefined, failure: undefined };
    this.starts.set(config.name, [...(this.starts.get(config.name) ?? []), start].slice(-3));
    client.then(
      (c) => {
        start.ready = c;
        void c.process.exited.then((end) => (start.end = end));
      },
      (error: unknown) => {
        start.failure = { message: failureText(error), stderrTail: error instanceof AgentStartFailure ? error.stderrTail : [] };
      },
    );
  }

  /** What is known of each agent started this session (its last three starts), for a bug report. No env values. */
  snapshots(): AgentSnapshot[] {
    return [...this.starts.values()].flat().map((s): AgentSnapshot => {
      const c = s.ready;
      const end = s.end;
      return {
        name: s.config.name,
        command: s.config.command,
        args: s.config.args,
        envNames: Object.keys(s.config.env),
        options: { readMissingAsEmpty: s.config.readMissingAsEmpty, protocol: s.config.protocol },
        startedAt: s.startedAt,
        state: s.failure ? 'failed to start' : !c ? 'starting' : end ? 'stopped' : 'running',
        pid: c?.process.pid,
        initialize: c && {
          protocolVersion: c.initialized.protocolVersion,
          agentInfo: c.initialized.agentInfo,
          agentCapabilities: c.initialized.agentCapabilities,
          authMethods: c.initialized.authMethods,
        },
        openSessions: c && !end ? c.openSessions.length : 0,
        exit: end && {
          code: 'code' in end ? end.code : null,
          signal: 'signal' in end ? end.signal : null,
          expected: 'expected' in end && end.expected,
          message: end.message,
        },
        failure: s.failure?.message,
        stderrTail: c ? c.process.stderrTail() : (s.failure?.stderrTail ?? []),
      };
    });
  }
}

/** Any change to what runs (command, args, env or options) needs a new process; news about the agent (an update available) does not. */
function sameCommand(a: AgentConfig, b: AgentConfig): boolean {
  const run = (c: AgentConfig) => JSON.stringify([c.command, c.url, c.terminals, c.args, c.env, c.readMissingAsEmpty, c.protocol]);
  return run(a) === run(b);
}

function envNames(config: AgentConfig): string {
  const names = Object.keys(config.env);
  return names.length > 0 ? ` (env: ${names.join(', ')})` : '';
}

/** One start of an agent, as the diagnostics remember it. */
interface AgentStart {
  readonly config: AgentConfig;
  readonly startedAt: Date;
  readonly client: Promise<AgentClient>;
  ready: AgentClient | undefined;
  end: Awaited<AgentClient['process']['exited']> | undefined;
  failure: { readonly message: string; readonly stderrTail: readonly string[] } | undefined;
}

/** What a bug report says about one start of an agent. Environment variables by name only. */
export interface AgentSnapshot {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly envNames: readonly string[];
  readonly options: Readonly<Record<string, unknown>>;
  readonly startedAt: Date;
  readonly state: 'starting' | 'running' | 'stopped' | 'failed to start';
  readonly pid: number | undefined;
  readonly initialize: Pick<S.InitializeResponse, 'protocolVersion' | 'agentInfo' | 'agentCapabilities' | 'authMethods'> | undefined;
  readonly openSessions: number;
  readonly exit: { readonly code: number | null; readonly signal: string | null; readonly expected: boolean; readonly message: string } | undefined;
  /** Why it never started (the sentence users saw). */
  readonly failure: string | undefined;
  readonly stderrTail: readonly string[];
}
