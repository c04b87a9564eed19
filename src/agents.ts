// The running agents, one process per configured agent, shared by all of its chats. The manager lives as long as
// the extension; each AgentClient lives as long as its process. A process is started on first use and stopped when
// its last session closes.
import * as vscode from 'vscode';
import { AgentClient, type HostServices } from './acp/client';
import { tagged, type Logger } from './acp/log';
import type * as S from './acp/schema.gen';
import type { LineTracer } from './acp/transport';
import type { AgentConfig } from './config';

interface Running {
  readonly config: AgentConfig;
  readonly client: Promise<AgentClient>;
}

export class AgentManager implements vscode.Disposable {
  private readonly running = new Map<string, Running>();
  /** Every live client, including one replaced in `running` after its settings changed. */
  private readonly subscriptions = new Map<AgentClient, vscode.Disposable[]>();

  constructor(
    /** What the host serves this agent (one instance per start, so per-agent state stays with its process). */
    private readonly services: (config: AgentConfig) => HostServices,
    private readonly clientInfo: S.Implementation,
    private readonly log: Logger,
    private readonly tracer: (agentName: string) => LineTracer,
  ) {}

  /** The agent's running client, or a new one. Concurrent callers share one start. */
  connect(config: AgentConfig, cwd: string): Promise<AgentClient> {
    const existing = this.running.get(config.name);
    if (existing && sameCommand(existing.config, config)) return existing.client;
    const log = tagged(this.log, config.name);
    log.info(`starting: ${[config.command, ...config.args].join(' ')}`);
    const client = AgentClient.start({ command: config.command, args: config.args, env: config.env, cwd }, this.services(config), {
      clientInfo: this.clientInfo,
      log,
      trace: this.tracer(config.name),
    });
    const entry: Running = { config, client };
    this.running.set(config.name, entry);
    client.then(
      (c) => {
        const info = c.initialized.agentInfo;
        log.info(`ready: ${info ? `${info.title ?? info.name} ${info.version}` : 'no agentInfo'}, protocol ${c.initialized.protocolVersion}`);
        this.subscriptions.set(c, [
          c.onDidExit(() => {
            this.unlist(config.name, entry);
            for (const d of this.subscriptions.get(c) ?? []) d.dispose();
            this.subscriptions.delete(c);
          }),
          c.onDidChangeSessions(() => {
            if (c.openSessions.length === 0) {
              log.info('its last chat closed; stopping it');
              this.unlist(config.name, entry);
              void c.dispose(); // its exit drops the subscriptions
            }
          }),
        ]);
      },
      () => this.unlist(config.name, entry),
    );
    return client;
  }

  /** The next connect for this name starts a new process (unless a newer one is already listed). */
  private unlist(name: string, entry: Running): void {
    if (this.running.get(name) === entry) this.running.delete(name);
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
  }

  // ---- What "ACP: Export Diagnostics" reports. Kept together at the end of the class. ----------------------------

  /** The last few starts of each agent this session, by name, newest last: running, stopped or failed to start. */
  private readonly starts = new Map<string, AgentStart[]>();
  /** Every start goes through `connect`: wrapped once, at construction, so that each new start is remembered. */
  private readonly recordingStarts: true = this.recordStarts();

  private recordStarts(): true {
    const connect = this.connect.bind(this);
    this.connect = (config, cwd) => {
      const client = connect(config, cwd);
      const starts = this.starts.get(config.name) ?? [];
      if (starts.some((s) => s.client === client)) return client; // an agent already running (or starting), reused
      const start: AgentStart = { config, startedAt: new Date(), client, ready: undefined, end: undefined, failure: undefined };
      this.starts.set(config.name, [...starts, start].slice(-3));
      client.then(
        (c) => {
          start.ready = c;
          void c.process.exited.then((end) => (start.end = end));
        },
        (error: unknown) => {
          const tail = typeof error === 'object' && error !== null && 'stderrTail' in error && Array.isArray(error.stderrTail) ? error.stderrTail : [];
          start.failure = { message: error instanceof Error ? error.message : String(error), stderrTail: tail.map(String) };
        },
      );
      return client;
    };
    return true;
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
        options: { readMissingAsEmpty: s.config.readMissingAsEmpty },
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

/** Any change to the agent's entry (command, args, env or options) needs a new process. */
function sameCommand(a: AgentConfig, b: AgentConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
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
