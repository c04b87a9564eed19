// The file "ACP: Export Diagnostics" writes: Markdown with fenced JSON, ready to attach to an issue. Pure (no
// `vscode`), so what it shows and what it hides is unit-tested; src/diagnostics.ts gathers the facts.
import { capLength, detached } from '../acp/log';
import { redact, type SecretScrubber } from '../acp/redact';
import type { AgentSnapshot } from '../agents/manager';
import { longestRun } from '../acp/text';

/** How many of an agent's last stderr lines the report shows. */
const MAX_STDERR_LINES = 100;

/**
 * The last lines written to the log, oldest first; older ones fall out. Its memory is fixed whatever agents make us
 * log: at most `capacity` lines, each cut to `maxLineChars`, and at most `maxBytes` in all (two bytes a character).
 * Each kept line is a copy, never a slice that would keep a huge line alive.
 */
export class RecentLines {
  private lines: string[] = [];
  /** Where the oldest kept line is in `lines` (dropping from the front is a move of this index). */
  private start = 0;
  private bytes = 0;

  constructor(
    readonly capacity = 1000,
    /** Longer lines are cut: a bug report needs what a line is about, not all of a payload. */
    private readonly maxLineChars = 2000,
    private readonly maxBytes = 1024 * 1024,
  ) {}

  push(line: string): void {
    const kept = detached(capLength(line, this.maxLineChars));
    this.lines.push(kept);
    this.bytes += 2 * kept.length;
    while (this.length > this.capacity || (this.bytes > this.maxBytes && this.length > 1)) {
      this.bytes -= 2 * (this.lines[this.start]?.length ?? 0);
      this.lines[this.start++] = '';
    }
    if (this.start > 64 && this.start * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.start);
      this.start = 0;
    }
  }

  get length(): number {
    return this.lines.length - this.start;
  }

  snapshot(): string[] {
    return this.lines.slice(this.start);
  }
}

interface EnvironmentFacts {
  readonly extensionVersion: string;
  readonly vscodeVersion: string;
  /** "Visual Studio Code", "code-server"…, and where it runs (desktop, web). */
  readonly app: string;
  readonly platform: string;
  readonly node: string;
  /** `vscode.env.remoteName`: undefined in a local window. */
  readonly remoteName: string | undefined;
  readonly workspaceTrusted: boolean;
  readonly workspaceFolders: number;
}

/** The editor tools' servers (src/editorTools): where they listen, and how many sessions hold a secret now. */
export interface EditorToolsFacts {
  /** `127.0.0.1:<port>` once the HTTP server listens. */
  readonly http: string | undefined;
  readonly bridge: boolean;
  readonly sessions: number;
}

export interface DiagnosticsFacts {
  readonly exportedAt: Date;
  readonly environment: EnvironmentFacts;
  /** The `acp.*` settings in effect, as VS Code has them; redacted here. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Which layer set each setting that is not at its default. */
  readonly settingSources: Readonly<Record<string, string>>;
  readonly agents: readonly AgentSnapshot[];
  readonly recentLog: readonly string[];
  readonly recentLogCapacity: number;
  readonly editorTools?: EditorToolsFacts;
}

/** `acp-diagnostics-20261122-1336.md`, in local time. */
export function defaultFileName(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `acp-diagnostics-${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-${two(date.getHours())}${two(date.getMinutes())}.md`;
}

/** The whole report. Settings and agent facts are redacted by shape, and then every known secret value is scrubbed. */
export function formatReport(facts: DiagnosticsFacts, scrubber?: SecretScrubber): string {
  const e = facts.environment;
  const out: string[] = [];
  out.push('# ACP Client diagnostics', '');
  out.push(
    `Exported ${facts.exportedAt.toISOString()}. The values of environment variables and headers, and settings that look ` +
      'like secrets, are replaced by `<redacted>`; read the file through before you attach it to a bug report.',
    '',
  );
  out.push('## Versions', '');
  out.push(
    ...[
      ['ACP Client', e.extensionVersion],
      ['VS Code', `${e.vscodeVersion} (${e.app})`],
      ['Platform', e.platform],
      ['Node.js', e.node],
      ['Remote', e.remoteName ?? 'none (local window)'],
      ['Workspace trusted', e.workspaceTrusted ? 'yes' : 'no'],
      ['Workspace folders', String(e.workspaceFolders)],
    ].map(([k, v]) => `- ${k}: ${v}`),
    '',
  );

  out.push('## Settings', '');
  const sources = Object.entries(facts.settingSources);
  out.push(
    sources.length ? `Set by you: ${sources.map(([k, v]) => `\`${k}\` (${v})`).join(', ')}; the rest are defaults.` : 'All at their defaults.',
    '',
  );
  out.push(...fenced('json', JSON.stringify(redact(facts.settings), null, 2)), '');

  out.push('## Agents', '');
  if (facts.agents.length === 0) out.push('No agent was started in this window since it opened.', '');
  for (const a of facts.agents) out.push(...agentSection(a));

  if (facts.editorTools) {
    const t = facts.editorTools;
    out.push('## Editor tools', '');
    out.push(
      `- HTTP: ${t.http ? `listening on ${t.http}` : 'not started'}`,
      `- stdio bridge: ${t.bridge ? 'listening' : 'not started'}`,
      `- Sessions with access: ${t.sessions}`,
      '',
    );
  }

  out.push(`## Recent log (last ${facts.recentLog.length} of at most ${facts.recentLogCapacity} lines)`, '');
  out.push(
    'What the **ACP** output channel logged, at its log level. JSON-RPC traffic appears only while `acp.trace` is `messages` or `verbose`.',
    '',
  );
  out.push(...fenced('text', facts.recentLog.length ? facts.recentLog.join('\n') : '(nothing logged yet)'), '');
  const text = out.join('\n');
  return scrubber ? scrubber.scrub(text) : text;
}

function agentSection(a: AgentSnapshot): string[] {
  const out = [`### ${a.name}: ${a.state}`, ''];
  out.push(`- Command: ${inlineCode([a.command, ...a.args].map(quoteArg).join(' '))}`);
  out.push(`- Environment variables set: ${a.envNames.length ? a.envNames.map((n) => inlineCode(n)).join(', ') : 'none'} (values not shown)`);
  const options = Object.entries(a.options).filter(([, v]) => v !== false && v !== undefined);
  if (options.length) out.push(`- Options: ${options.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}`);
  out.push(`- Started: ${a.startedAt.toISOString()}${a.pid !== undefined ? `, process ${a.pid}` : ''}`);
  if (a.failure !== undefined) out.push(`- Failed to start: ${a.failure}`);
  if (a.state === 'running') out.push(`- Open sessions: ${a.openSessions}`);
  if (a.exit) {
    const how = a.exit.signal ? `signal ${a.exit.signal}` : `code ${a.exit.code ?? 'unknown'}`;
    out.push(`- Exit: ${how}${a.exit.expected ? ' (stopped by the client)' : ` (${a.exit.message})`}`);
  }
  out.push('');
  if (a.initialize) {
    out.push('Its answer to `initialize`:', '', ...fenced('json', JSON.stringify(redact(a.initialize), null, 2)), '');
  }
  const tail = a.stderrTail.slice(-MAX_STDERR_LINES);
  out.push(tail.length ? `Its stderr (the last ${tail.length === 1 ? 'line' : `${tail.length} lines`}):` : 'It wrote nothing to stderr.', '');
  if (tail.length) out.push(...fenced('text', tail.join('\n')), '');
  return out;
}

/** A fenced block whose fence is longer than any run of backticks inside, so nothing can close it early. */
export function fenced(language: string, body: string): string[] {
  // A loop, not Math.max(...runs): 200,000 runs of backticks overflow the stack as arguments.
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return [`${fence}${language}`, body, fence];
}

function inlineCode(text: string): string {
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  return `${ticks}${text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text}${ticks}`;
}

function quoteArg(arg: string): string {
  return arg === '' || /[\s"'\\$`]/.test(arg) ? JSON.stringify(arg) : arg;
}
