// Turns the session model into the view messages the webview renders. Pure: no `vscode`, unit-tested in Node.
import type * as S from '../acp/schema.gen';
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlanState } from '../acp/plans';
import type { AuthStatus } from '../acp/authStatus';
import type { AgentSession } from '../acp/agentClient';
import type { SessionModel } from '../acp/sessionModel';
import type { CompactionState, Entry, MessageRole, TerminalState, ToolCallState, TurnState } from '../acp/sessionState';
import { clip } from '../acp/text';
import { diffsOf, isPlanApproval, planFileOf, planOf, terminalIds } from '../acp/toolCalls';
import { selectChoices } from '../acp/choices';
import type { TurnFailureKind } from '../acp/turnFailure';
import { lineDelta } from '../common/lineDelta';
import { plainTerminalText } from '../common/ansi';
import type {
  ChipView,
  EntryView,
  PermissionView,
  PickerView,
  PlanByIdView,
  PlanEntryView,
  SessionView,
  SubagentView,
  TerminalView,
  TurnAction,
  TurnUsageView,
  TurnView,
  ImageView,
} from './protocol';
import { elicitationViews } from './elicitationViews';
import { linkedImageType, MAX_LINKED_IMAGES, shownImage } from './images';

/** Characters of a command's output sent to the chat; "Show in Terminal" has the rest. */
const TERMINAL_VIEW_LIMIT = 64 * 1024;

/** The session's own entries as the chat shows them, from index `from` on. */
export function sessionEntries(session: AgentSession | undefined, from = 0): EntryView[] {
  if (!session) return [];
  const entries = from > 0 ? session.model.entries.slice(from) : session.model.entries;
  return entries.map((entry) => entryView(entry, session.cwd, session.model.terminals));
}

/** The view of one entry. `cwd` makes paths short; `terminals` is the session's command output. */
export function entryView(entry: Entry, cwd: string, terminals: ReadonlyMap<string, TerminalState>): EntryView {
  if (entry.type === 'message')
    return {
      id: entry.id,
      kind: 'message',
      role: entry.role,
      ...messageParts(entry.role, entry.content, cwd),
      ...(entry.steer ? { steer: entry.steer } : {}),
      ...(entry.role === 'user' && !entry.sent ? { byAgent: true as const } : {}),
    };
  if (entry.type === 'compaction') return compactionView(entry.id, entry.compaction, cwd);
  const call = entry.call;
  const rawInput = rawJson(call.rawInput);
  const rawOutput = rawJson(call.rawOutput);
  return {
    id: entry.id,
    kind: 'tool',
    toolCallId: call.toolCallId,
    title: call.title ?? '', // '' when the agent gave none: the webview says "Tool call" in the user's language
    toolKind: call.kind,
    status: call.status,
    locations: call.locations.map((l) => `${shortPath(l.path, cwd)}${l.line != null ? `:${l.line}` : ''}`),
    content: call.content.flatMap((c) => (c.type === 'content' ? [messageParts('agent', [c.content], cwd).text] : [])).filter((t) => t !== ''),
    diffs: diffsOf(call).map((d) => ({ label: shortPath(d.path, cwd), created: d.oldText == null, ...lineCounts(d) })),
    terminals: terminalIds(call, terminals).map((id) => terminalView(id, terminals.get(id))),
    ...(rawInput !== undefined ? { rawInput } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
    ...(call.autoAnswer ? { autoAnswer: { option: call.autoAnswer.optionName, reason: call.autoAnswer.reason } } : {}),
    ...(call.exitCode !== undefined ? { exitCode: call.exitCode } : {}),
    ...(call.cancellable && (call.status === 'pending' || call.status === 'in_progress') ? { canStop: true as const } : {}),
  };
}

function compactionView(id: number, c: CompactionState, cwd: string): EntryView {
  return {
    id,
    kind: 'compaction',
    status: c.status,
    summary: messageParts('agent', c.summary, cwd).text,
    ...(c.truncated ? { truncated: true } : {}),
    ...(c.error !== undefined ? { error: c.error } : {}),
    ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}),
    ...(c.tokensAfter !== undefined ? { tokensAfter: c.tokensAfter } : {}),
  };
}

/**
 * A message's markdown and chips. The user's attachments are chips; an agent's links stay in its text, and what
 * cannot be shown inline (images, audio, embedded files) becomes a chip.
 */
function messageParts(role: MessageRole, blocks: readonly S.ContentBlock[], cwd: string): { text: string; chips: ChipView[]; images?: ImageView[] } {
  let text = '';
  const chips: ChipView[] = [];
  const images: ImageView[] = [];
  let imageIndex = 0;
  let linkedImages = 0;
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'resource_link':
        if (role === 'user') chips.push({ kind: isFileUri(block.uri) ? 'file' : 'link', label: uriLabel(block.uri, cwd, block.title ?? block.name) });
        else {
          text += `[${escapeLinkText(block.title ?? block.name)}](<${block.uri.replace(/[<>\s]/g, encodeURIComponent)}>)`;
          // A link to an image file on this computer is shown too, below the text (read and checked when asked for).
          if (linkedImages < MAX_LINKED_IMAGES && linkedImageType(block)) {
            linkedImages++;
            images.push({ index: imageIndex++, file: (block.title ?? block.name).slice(0, 300) });
          }
        }
        break;
      case 'resource':
        chips.push({ kind: /#L\d+/.test(block.resource.uri) ? 'selection' : 'file', label: uriLabel(block.resource.uri, cwd) });
        break;
      case 'image': {
        // The agent's images are shown (bounded); the user's own stay chips, as they were attached.
        const shown = role === 'user' ? undefined : shownImage(block);
        const index = imageIndex++;
        if (shown && !('refused' in shown)) images.push({ index, width: shown.width, height: shown.height });
        else {
          const label = block.uri ? uriLabel(block.uri, cwd) : `image (${block.mimeType})`;
          chips.push({ kind: 'image', label: shown ? `${label}, ${shown.refused}` : label });
        }
        break;
      }
      case 'audio':
        chips.push({ kind: 'audio', label: `audio (${block.mimeType})` });
        break;
    }
  }
  return images.length > 0 ? { text, chips, images } : { text, chips };
}

function isFileUri(uri: string): boolean {
  return uri.startsWith('file:');
}

/** "src/app.ts", "src/app.ts:10-20" for a selection (`#L10-L20`), or the URI itself. */
function uriLabel(uri: string, cwd: string, fallback?: string): string {
  if (!isFileUri(uri)) return fallback ?? uri;
  try {
    const url = new URL(uri);
    const lines = /^#L(\d+)(?:-L?(\d+))?$/.exec(url.hash);
    url.hash = '';
    const path = shortPath(fileURLToPath(url), cwd);
    if (!lines) return path;
    return lines[2] && lines[2] !== lines[1] ? `${path}:${lines[1]}-${lines[2]}` : `${path}:${lines[1]}`;
  } catch {
    return fallback ?? uri;
  }
}

function escapeLinkText(text: string): string {
  return text.replace(/[[\]\\]/g, (c) => `\\${c}`);
}

/** Characters of raw input or output sent to the chat. */
const RAW_VIEW_LIMIT = 20_000;

/** Indented JSON, shortened when long; nothing for absent or empty values. */
function rawJson(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && Object.keys(value).length === 0) return undefined;
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  } catch {
    return undefined;
  }
  return text.length > RAW_VIEW_LIMIT ? `${text.slice(0, RAW_VIEW_LIMIT)}\n… (${text.length - RAW_VIEW_LIMIT} more characters)` : text;
}

type DiffContent = Extract<ToolCallState['content'][number], { type: 'diff' }>;
const counted = new WeakMap<DiffContent, { added: number; removed: number }>();

/** Lines added and removed by a diff (computed once per diff; very large edits are bounded and estimated). */
function lineCounts(diff: DiffContent): { added: number; removed: number } {
  const known = counted.get(diff);
  if (known) return known;
  const result = lineDelta(diff.oldText ?? '', diff.newText);
  counted.set(diff, result);
  return result;
}

/**
 * Counts the lines of the diffs in `entries` ahead, a slice at a time (each diff is counted once, then kept): a chat
 * reopened on a long history would otherwise count them all when its page first asks for the whole state, while the
 * user waits. Resolves when done, or at once once `signal` aborts.
 */
export async function countDiffLines(entries: readonly Entry[], signal: AbortSignal): Promise<void> {
  let sliceStart = performance.now();
  for (const entry of entries) {
    if (entry.type !== 'tool') continue;
    for (const diff of diffsOf(entry.call)) {
      if (signal.aborted) return;
      lineCounts(diff);
      if (performance.now() - sliceStart > COUNT_SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        sliceStart = performance.now();
      }
    }
  }
}

/** The longest the host's thread is held by `countDiffLines` at a time. */
const COUNT_SLICE_MS = 20;

function terminalView(id: string, state: TerminalState | undefined): TerminalView {
  const raw = state?.text ?? '';
  const tail = raw.length > TERMINAL_VIEW_LIMIT ? raw.slice(raw.length - TERMINAL_VIEW_LIMIT) : raw;
  const exit = state?.exitStatus;
  return {
    id,
    output: plainTerminalText(tail),
    truncated: (state?.truncated ?? false) || tail.length < raw.length,
    ...(exit ? { exit: exit.signal ? { signal: exit.signal } : { code: exit.exitCode ?? null } } : {}),
  };
}

/** A path inside `cwd` relative to it; any other path as it is. */
export function shortPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : path;
}

/**
 * What fits a failure: Sign In alone when signed out (the message went back into the composer), else Switch Model
 * where another model is offered (not for the network), and Retry.
 */
function failureActions(kind: TurnFailureKind, model: Pick<SessionModel, 'configOptions'> | undefined): TurnAction[] {
  if (kind === 'signedOut') return ['signIn'];
  const models = model?.configOptions.find((o) => o.category === 'model' && o.type === 'select');
  return models?.type === 'select' && selectChoices(models).length > 1 && kind !== 'network' ? ['switchModel', 'retry'] : ['retry'];
}

export function turnView(turn: TurnState, model?: Pick<SessionModel, 'turnEnds' | 'entries' | 'configOptions'>): TurnView {
  const usage = model ? turnUsages(model) : [];
  const used = usage.length > 0 ? { usage } : {};
  switch (turn.phase) {
    case 'idle': {
      const failure = turn.failure && { ...turn.failure, actions: failureActions(turn.failure.kind, model) };
      return {
        phase: 'idle',
        ...(turn.stopReason ? { stopReason: turn.stopReason } : {}),
        ...(turn.error ? { error: turn.error } : {}),
        ...(failure && { failure }),
        ...used,
      };
    }
    default:
      return { phase: turn.phase, ...used };
  }
}

/** Turns whose usage the chat shows: the latest. */
const USAGE_TURNS = 200;

function turnUsages(model: Pick<SessionModel, 'turnEnds' | 'entries'>): TurnUsageView[] {
  const views: TurnUsageView[] = [];
  for (let i = model.turnEnds.length - 1; i >= 0 && views.length < USAGE_TURNS; i--) {
    const { afterEntry, usage } = model.turnEnds[i]!;
    const entry = model.entries[afterEntry];
    if (usage && entry) views.unshift({ after: entry.id, ...usage });
  }
  return views;
}

export function permissionViews(model: SessionModel): PermissionView[] {
  return model.permissions.map((p) => {
    const call = model.toolCall(p.toolCallId);
    const plan = call && planOf(call);
    const approval = call !== undefined && isPlanApproval(call);
    const effects = approval ? model.quirks.planOptions : {};
    const effect = (o: S.PermissionOption) => (effects[o.optionId] ? { effect: effects[o.optionId]! } : {});
    return {
      id: p.id,
      toolCallId: p.toolCallId,
      title: call?.title ?? '',
      toolKind: call?.kind ?? 'other',
      hasDiff: call !== undefined && diffsOf(call).length > 0,
      ...(plan ? { plan } : {}),
      ...(approval ? { planApproval: { canOpen: plan !== undefined || planFileOf(call) !== undefined } } : {}),
      options: p.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind, ...effect(o) })),
    };
  });
}

/** The latest entries a subagent's card shows. */
const SUBAGENT_ENTRIES = 40;

/** The children of a session (subagents), each as a card: name, task, state, its latest entries and what waits. */
export function subagentViews(model: SessionModel, cwd: string): SubagentView[] {
  return model.subagents.map(({ info, model: child }) => {
    const entries = child.entries.slice(-SUBAGENT_ENTRIES);
    // The task the parent sent and the child's reply, from whichever transcript the agent put them in.
    const between = (from: string, to: string) =>
      model.messages.latest(model.sessionId, from, to) ?? child.messages.latest(child.sessionId, from, to);
    const task = between(model.sessionId, child.sessionId);
    const reply = between(child.sessionId, model.sessionId);
    return {
      sessionId: info.sessionId,
      title: info.title ?? info.sessionId.slice(0, 40),
      ...(info.description ? { description: info.description } : {}),
      ...(info.state ? { state: info.state } : {}),
      canCancel: info.canCancel,
      entries: entries.map((entry) => entryView(entry, info.cwd ?? cwd, child.terminals)),
      earlier: child.entries.length - entries.length,
      ...(task?.text ? { task: task.text } : {}),
      ...(reply?.text ? { reply: reply.text } : {}),
      permissions: permissionViews(child),
      elicitations: elicitationViews(child.elicitations.all),
    };
  });
}

/** What the agent accepts in a prompt besides text and links (from its `promptCapabilities`). */
export interface PromptAccepts {
  readonly image: boolean;
  readonly embeddedContext: boolean;
}

/** Notices kept in the view: the latest few. */
const NOTICES_SHOWN = 5;

export function sessionView(
  model: SessionModel,
  accepts: PromptAccepts,
  canFork = false,
  worktree?: SessionView['worktree'],
  auth?: AuthStatus,
): SessionView {
  return {
    ...(canFork ? { canFork } : {}),
    ...(auth && auth.state !== 'unknown' ? { account: { state: auth.state, names: accountNames(auth) } } : {}),
    ...(worktree ? { worktree: { branch: worktree.branch, path: worktree.path } } : {}),
    ...(model.title ? { title: model.title } : {}),
    plan: model.plan.map(planEntryView),
    ...(model.plans.all.length > 0 ? { plans: model.plans.all.map(planByIdView) } : {}),
    commands: model.commands.map((c) => ({ name: c.name, description: c.description, ...(c.input?.hint ? { hint: c.input.hint } : {}) })),
    pickers: pickers(model),
    ...(model.usage
      ? { usage: { used: model.usage.used, size: model.usage.size, ...(model.usage.cost ? { cost: money(model.usage.cost) } : {}) } }
      : {}),
    notices: model.notices
      .slice(-NOTICES_SHOWN)
      .map((n) => ({ severity: n.severity, title: n.title, ...(n.description ? { description: n.description } : {}) })),
    accepts: { image: accepts.image, embeddedContext: accepts.embeddedContext },
  };
}

/** The accounts in effect, where the agent marks them, else all it listed: who (email or name), then the label. */
function accountNames(auth: AuthStatus): string[] {
  const active = auth.accounts.filter((a) => a.active === true);
  return (active.length > 0 ? active : auth.accounts).map((a) => {
    const who = a.email ?? a.name;
    return who && who !== a.label ? `${who} (${a.label})` : a.label;
  });
}

function planEntryView(entry: S.PlanEntry): PlanEntryView {
  return { content: entry.content, status: entry.status, priority: entry.priority };
}

function planByIdView(plan: PlanState): PlanByIdView {
  switch (plan.kind) {
    case 'items':
      return { id: plan.planId, kind: 'items', entries: plan.entries.map(planEntryView) };
    case 'markdown':
      return { id: plan.planId, kind: 'markdown', markdown: plan.markdown, ...(plan.truncated ? { truncated: true } : {}) };
    case 'file':
      return { id: plan.planId, kind: 'file', name: fileNameOf(plan.uri) };
  }
}

/** The last segment of a plan file's uri, for its button; the uri itself when it has none. */
function fileNameOf(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  return clip(safeDecode(name) || uri, 200);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The mode (unless a config option already is the mode) and the config options, in the agent's order. */
function pickers(model: SessionModel): PickerView[] {
  const result: PickerView[] = [];
  const modes = model.modes;
  const modeIsConfig = model.configOptions.some((o) => o.category === 'mode');
  if (modes && modes.availableModes.length > 0 && !modeIsConfig) {
    result.push({
      type: 'select',
      target: 'mode',
      id: 'mode',
      name: '', // the legacy mode list has no name of its own: the webview says "Mode" in the user's language
      current: modes.currentModeId,
      options: modes.availableModes.map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
    });
  }
  for (const option of model.configOptions) {
    const description = option.description ? { description: option.description } : {};
    if (option.type === 'boolean') {
      result.push({ type: 'boolean', target: 'config', id: option.id, name: option.name, ...description, current: option.currentValue });
      continue;
    }
    const options = (option.options as readonly (S.SessionConfigSelectOption | S.SessionConfigSelectGroup)[]).flatMap((o) =>
      isGroup(o) ? o.options.map((v) => selectOption(v, o.name)) : [selectOption(o)],
    );
    const category = typeof option.category === 'string' ? { category: option.category } : {};
    result.push({
      type: 'select',
      target: 'config',
      id: option.id,
      name: option.name,
      ...category,
      ...description,
      current: option.currentValue,
      options,
    });
  }
  return result;
}

/** Options come as a flat list or in named groups (objects keep unknown keys, so `in` alone does not tell). */
function isGroup(o: S.SessionConfigSelectOption | S.SessionConfigSelectGroup): o is S.SessionConfigSelectGroup {
  return typeof o['group'] === 'string' && Array.isArray(o['options']);
}

function selectOption(o: S.SessionConfigSelectOption, group?: string): Extract<PickerView, { type: 'select' }>['options'][number] {
  return { value: o.value, name: o.name, ...(o.description ? { description: o.description } : {}), ...(group ? { group } : {}) };
}

function money(cost: S.Cost): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: cost.currency, maximumFractionDigits: 4 }).format(cost.amount);
  } catch {
    return `${cost.amount} ${cost.currency}`;
  }
}
