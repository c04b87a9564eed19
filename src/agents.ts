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

  /**
   * Stops an agent that no chat uses (one started to list its sessions, say). It is unlisted first, so the next
   * connect starts a new process instead of getting this one as it stops.
   */
  async release(client: AgentClient): Promise<void> {
    const entries = await Promise.all([...this.running].map(async ([name, entry]) => ({ name, entry, client: await entry.client.catch(() => undefined) })));
    if (client.hasExited || client.openSessions.length > 0) return;
    for (const e of entries) if (e.client === client) this.unlist(e.name, e.entry);
    await client.dispose();
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
}

/** Any change to the agent's entry (command, args, env or options) needs a new process. */
function sameCommand(a: AgentConfig, b: AgentConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
