// The user's agreement to what a built-in preset runs. The registry may pin a preset to a new version (and only
// that: src/registry/presets.ts), and a new release of the extension may change a preset's package (Claude Code and
// Codex moved to the adapters the ACP project maintains: FORMER_PRESETS). Before the first start with a command line
// the user has not seen, this shows the old and the new one and asks, once. Declining keeps the old command line,
// and the same new one is not asked again. A user who never ran the preset is not asked about a line they never saw.
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import { FORMER_PRESETS, PRESETS, type AgentConfig } from '../settings/agentConfig';
import { compareVersions } from '../common/versions';

const KEY = 'acp.presetCommandLines';

/** What the user said of a preset's command lines: the one agreed to last, and the last one declined. */
interface Said {
  readonly agreed?: readonly string[];
  readonly declined?: readonly string[];
}

/** A command line as the words that run: the command, then its arguments. */
const lineOf = (config: AgentConfig): readonly string[] => [config.command, ...config.args];
const same = (a: readonly string[] | undefined, b: readonly string[]) => a !== undefined && a.length === b.length && a.every((w, i) => w === b[i]);
/** A command line as the user reads it. */
const shown = (line: readonly string[]): string => line.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(' ');

export class PresetConsent {
  /** One question per preset at a time: chats that start together share it. */
  private readonly asking = new Map<string, Promise<AgentConfig>>();

  constructor(
    private readonly memento: vscode.Memento,
    private readonly log: Logger,
    /** Whether the user has chats with the agent named so: they ran it before this record was kept. */
    private readonly usedBefore: (name: string) => Promise<boolean> = () => Promise.resolve(false),
  ) {}

  /**
   * The config to run for `config` without asking, or undefined when the user must be asked first (or the record
   * looked up). Anything but a preset runs as it is; so does a preset with the command line the user agreed to, or as
   * built in when it never had another.
   */
  settled(config: AgentConfig): AgentConfig | undefined {
    if (!config.preset) return config;
    const line = lineOf(config);
    const said = this.said(config.name);
    const former = FORMER_PRESETS[config.name] ?? [];
    const builtIn = PRESETS.find((p) => p.name === config.name);
    if (said.agreed === undefined) return builtIn && same(lineOf(builtIn), line) && former.length === 0 ? config : undefined;
    if (same(said.agreed, line)) return config;
    if (same(said.declined, line)) return { ...config, command: said.agreed[0]!, args: said.agreed.slice(1) };
    // Back to the built-in line of this release: it runs, unless the user agreed to a package it no longer runs.
    const agreedFormer = former.some((l) => same(said.agreed, l));
    return builtIn && same(lineOf(builtIn), line) && !agreedFormer ? config : undefined;
  }

  /** The config to run for `config`: settled, or after the user chose between the old and the new command line. */
  approve(config: AgentConfig): Promise<AgentConfig> {
    const settled = this.settled(config);
    if (settled) return Promise.resolve(settled);
    let question = this.asking.get(config.name);
    if (!question) {
      question = this.ask(config).finally(() => this.asking.delete(config.name));
      this.asking.set(config.name, question);
    }
    return question;
  }

  private async ask(config: AgentConfig): Promise<AgentConfig> {
    const before = await this.before(config);
    const after = lineOf(config);
    if (same(before, after)) {
      // Nothing to show: the line the user runs from now on is recorded, so that a later change is asked.
      await this.memento.update(KEY, { ...this.all(), [config.name]: { agreed: after } });
      return config;
    }
    const run = { label: vscode.l10n.t('Run the New Command Line'), detail: shown(after), line: after };
    const keep = { label: vscode.l10n.t('Keep the Old Command Line'), detail: shown(before), line: before };
    const formerly = (FORMER_PRESETS[config.name] ?? []).some((line) => same(line, before));
    const [was, now] = [pinOf(before), pinOf(after)];
    // An older release is no update: it says so, and keeping what runs comes first.
    const older = !formerly && was !== undefined && now !== undefined && compareVersions(now, was) < 0;
    const choice = await vscode.window.showQuickPick(older ? [keep, run] : [run, keep], {
      title: formerly
        ? vscode.l10n.t('{0} now runs another package', config.name)
        : older
          ? vscode.l10n.t('The ACP Registry pins {0} to an older version ({1}, you run {2})', config.name, now, was)
          : vscode.l10n.t('The ACP Registry pins {0} to a new version', config.name),
      placeHolder: vscode.l10n.t('{0} would now run "{1}" instead of "{2}". Choose what runs.', config.name, shown(after), shown(before)),
      ignoreFocusOut: true,
    });
    const answer: Said | undefined = choice === run ? { agreed: after } : choice === keep ? { agreed: before, declined: after } : undefined;
    if (answer) {
      await this.memento.update(KEY, { ...this.all(), [config.name]: answer });
      this.log.info(`[agents] ${config.name}: the user ${choice === run ? 'agreed to' : 'declined'} "${shown(after)}"`);
    }
    // Escape keeps the old command line for this start and asks again at the next.
    return choice === run ? config : { ...config, command: before[0]!, args: before.slice(1) };
  }

  /**
   * The command line the user ran before: the one agreed to last; without a record, the preset's former built-in
   * line for a user who has chats with it, else the built-in one.
   */
  private async before(config: AgentConfig): Promise<readonly string[]> {
    const said = this.said(config.name).agreed;
    if (said && said.length > 0) return said;
    const former = FORMER_PRESETS[config.name]?.[0];
    if (former && (await this.usedBefore(config.name).catch(() => false))) return former;
    const builtIn = PRESETS.find((p) => p.name === config.name);
    return builtIn ? lineOf(builtIn) : lineOf(config);
  }

  private said(name: string): Said {
    const value = this.all()[name];
    const words = (v: unknown) => (Array.isArray(v) && v.length > 0 && v.every((w) => typeof w === 'string') ? (v as string[]) : undefined);
    return value && typeof value === 'object' ? { agreed: words((value as Said).agreed), declined: words((value as Said).declined) } : {};
  }

  private all(): Record<string, unknown> {
    const value = this.memento.get<unknown>(KEY);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  }
}

/** The version a command line pins its package to (`npx -y pkg@1.2.3`), if it pins one. */
function pinOf(line: readonly string[]): string | undefined {
  for (const word of line) {
    const match = /^(?:@[^/@\s]+\/)?[^@\s]+@(\d+\.\d+\.\d+[\w.+-]*)$/.exec(word);
    if (match) return match[1];
  }
  return undefined;
}
