// The account's limits in the status bar: one item per running agent that reports its quota (acp/quota.ts), showing
// its most urgent limit (one the agent says is reached or near, else the most used: how much, of which window, when it
// resets) with every limit in the tooltip (amounts too: a balance, a spend cap), and a warning, once per limit and
// window, when one passes 90% or the agent says it is near. The context window and a session's tokens are not quota
// and are never shown here.
import * as vscode from 'vscode';
import type { QuotaMeter, QuotaQuantity } from '../acp/quota';
import { disposeAll } from '../common/disposables';
import type { AgentManager } from './manager';

const WARN_AT = 90;

export class QuotaMeters implements vscode.Disposable {
  private readonly items = new Map<string, vscode.StatusBarItem>();
  /** The limits warned about, by agent and limit: again only once they have fallen below the mark (a new window). */
  private readonly warned = new Set<string>();
  private readonly subscription: vscode.Disposable;
  /** Each agent's next reset: its meter is drawn again then, without the limit that reset. */
  private readonly resets = new Map<string, NodeJS.Timeout>();

  constructor(private readonly agents: AgentManager) {
    this.subscription = agents.onDidChangeStatus((name) => this.update(name));
  }

  private update(name: string): void {
    const meters = this.agents.client(name)?.quota.all ?? [];
    clearTimeout(this.resets.get(name));
    const next = Math.min(...meters.map((m) => m.resetsAt ?? Infinity));
    // setTimeout takes at most about 24 days; a later reset is drawn on the agent's next report.
    if (next - Date.now() < 2 ** 31 - 1)
      this.resets.set(
        name,
        setTimeout(() => this.update(name), Math.max(0, next - Date.now()) + 1000),
      );
    const top = meters[0];
    if (!top) {
      this.items.get(name)?.dispose();
      this.items.delete(name);
      return;
    }
    let item = this.items.get(name);
    if (!item) {
      item = vscode.window.createStatusBarItem(`acp.quota.${name}`, vscode.StatusBarAlignment.Left, 9);
      item.name = vscode.l10n.t('{0} usage limits', name);
      this.items.set(name, item);
    }
    const used = Math.round(top.usedPercent ?? 0);
    item.text =
      top.usedPercent !== undefined
        ? `$(dashboard) ${vscode.l10n.t('{0}: {1}% of {2}', name, used, windowWords(top))}`
        : `$(dashboard) ${vscode.l10n.t('{0}: {1}', name, amounts(top))}`;
    item.accessibilityInformation = { label: describe(name, top) };
    const tooltip = new vscode.MarkdownString(`**${escape(vscode.l10n.t('{0} usage limits', name))}**\n\n`);
    for (const m of meters) tooltip.appendMarkdown(`- ${escape(describe(name, m))}\n`);
    item.tooltip = tooltip;
    item.backgroundColor = near(top) ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
    for (const m of meters) this.warn(name, m);
  }

  private warn(name: string, meter: QuotaMeter): void {
    const key = JSON.stringify([name, meter.id]);
    if (!near(meter)) return void this.warned.delete(key);
    if (this.warned.has(key)) return;
    this.warned.add(key);
    void vscode.window.showWarningMessage(describe(name, meter));
  }

  dispose(): void {
    this.subscription.dispose();
    for (const timer of this.resets.values()) clearTimeout(timer);
    disposeAll(this.items.values());
    this.items.clear();
  }
}

/**
 * "Claude Code has used 92% of its 5-hour limit; it resets Nov 30, 2026, 3:00 PM." A meter without a share says its
 * amounts: "Codex, Credits: 118.5 credits left."
 */
function describe(name: string, meter: QuotaMeter): string {
  const resets =
    meter.resetsAt !== undefined ? new Date(meter.resetsAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : undefined;
  if (meter.usedPercent === undefined) {
    const what = plain(meter.pool && meter.label && meter.pool !== meter.label ? `${meter.pool}, ${meter.label}` : (meter.label ?? meter.id));
    return resets
      ? vscode.l10n.t('{0}, {1}: {2}; it resets {3}.', name, what, amounts(meter), resets)
      : vscode.l10n.t('{0}, {1}: {2}.', name, what, amounts(meter));
  }
  const used = Math.round(meter.usedPercent);
  return resets
    ? vscode.l10n.t('{0} has used {1}% of its {2} limit; it resets {3}.', name, used, windowWords(meter), resets)
    : vscode.l10n.t('{0} has used {1}% of its {2} limit.', name, used, windowWords(meter));
}

/** Past the mark, or near its limit or at it as the agent says (a meter with an amount and no share). */
function near(meter: QuotaMeter): boolean {
  return (meter.usedPercent ?? 0) >= WARN_AT || meter.status === 'warning' || meter.status === 'exceeded';
}

/** What a meter without a share says: "12.40 USD used of 50.00 USD", "118.5 credits left", or its status. */
function amounts(meter: QuotaMeter): string {
  if (meter.used && meter.limit) return vscode.l10n.t('{0} used of {1}', amount(meter.used), amount(meter.limit));
  if (meter.remaining) return vscode.l10n.t('{0} left', amount(meter.remaining));
  if (meter.used) return vscode.l10n.t('{0} used', amount(meter.used));
  return meter.status === 'exceeded'
    ? vscode.l10n.t('limit reached')
    : meter.status === 'warning'
      ? vscode.l10n.t('near its limit')
      : vscode.l10n.t('within its limit');
}

/**
 * An amount as money where its unit is a currency Intl knows and money's two decimals keep it exact ("$12.40"); else
 * the number and its unit as the agent wrote them ("118.5 credits", "0.005 USD").
 */
function amount(q: QuotaQuantity): string {
  if (q.unit && isCurrency(q.unit) && /^-?\d{1,15}(?:\.\d{1,2})?$/.test(q.value)) {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: q.unit }).format(Number(q.value));
  }
  return plain(q.unit ? `${q.value} ${q.unit}` : q.value);
}

let currencies: ReadonlySet<string> | undefined;

/** An ISO 4217 code Intl formats, asked the first time an amount has a unit. */
function isCurrency(unit: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(unit);
}

/** The window in words: `PT5H` is "5-hour", `P7D` "weekly", else the agent's label or its id. */
function windowWords(meter: QuotaMeter): string {
  const m = /^P(?:(\d+)D)?(?:T(\d+)H)?$/.exec(meter.window ?? '');
  if (m && (m[1] || m[2])) {
    const days = Number(m[1] ?? 0);
    const hours = Number(m[2] ?? 0);
    if (days === 7 && hours === 0) return vscode.l10n.t('weekly');
    if (days === 1 && hours === 0) return vscode.l10n.t('daily');
    if (days === 0) return vscode.l10n.t('{0}-hour', hours);
    return vscode.l10n.t('{0}-day', days);
  }
  return plain(meter.label ?? meter.id);
}

/** The agent's own words: one line, no icons, bounded. */
function plain(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(').replace(/\s+/g, ' ').slice(0, 40);
}

/** Text for a Markdown tooltip, shown as written. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
