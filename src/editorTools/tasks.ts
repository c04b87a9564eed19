// The workspace's tasks as tools: `list_tasks`, and `run_task`, which asks the user as an agent's command is asked,
// runs the task in its terminal and answers with its exit code and the tail of its output. VS Code's task API does not
// give a task's output, so a shell or process task whose variables resolve here runs through a pseudoterminal that
// shows its output in the task's terminal and keeps a bounded tail; any other task runs as VS Code runs it, and the
// answer says its output is in the terminal.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import { clip } from '../acp/text';
import { plainTerminalText } from '../common/ansi';
import { DisposableStore } from '../common/disposables';
import { CapturedRun, type RunCommand } from './taskRun';
import { resolveVariables, shellLine, valuesFromOutside, type TaskVariables } from './taskLine';
import { taskQuestion, type TaskCommandView } from './taskQuestion';
import { tool, type EditorTool, type ToolAnswer, type ToolContext } from './tools';

/** How long run_task waits for a task to end once it runs; then the task is stopped. */
const RUN_MS = 10 * 60_000;
/** How long the user has to answer, on top. */
const ASK_MS = 10 * 60_000;
/** A background task (a watcher) never ends: its first output is given after this, and it goes on running. */
const BACKGROUND_MS = 15_000;
const MAX_TASKS = 500;
/** The most of a task's output the answer carries (its tail). */
const MAX_OUTPUT_CHARS = 16 * 1024;

/**
 * How a task is run. `line` is what it runs as written (its variables unresolved: a resolved `${env:…}` could be a
 * secret, and the line goes into the question, the rules and the log); `view` is the whole command that is started,
 * which the user is asked about; `fingerprint` is of everything that decides the run, resolved, so that an approval
 * (and an "always" rule) holds for that run only. A `refused` task is not offered to the user at all.
 */
type Plan = { readonly line: string; readonly view: TaskCommandView; readonly fingerprint: string } & (
  | { readonly kind: 'captured'; readonly command: RunCommand }
  | { readonly kind: 'native'; readonly why: string }
  | { readonly kind: 'refused'; readonly why: string }
);

export const TASK_TOOLS: readonly EditorTool[] = [
  tool({
    name: 'list_tasks',
    description:
      "The workspace's tasks (tasks.json and the tasks that extensions detect, such as npm scripts): name, source, type, group, and what each runs. Run one with run_task.",
    input: {},
    async run(_args, context) {
      const tasks = (await vscode.tasks.fetchTasks()).filter((t) => ofSession(t, context));
      const items = tasks.slice(0, MAX_TASKS).map((t) => ({
        name: t.name,
        source: t.source,
        type: t.definition.type,
        ...(t.group ? { group: t.group.id } : {}),
        ...(t.detail ? { detail: clip(t.detail, 200) } : {}),
        ...(t.isBackground ? { background: true } : {}),
        runs: clip(plan(t, context).line, 300),
      }));
      return { value: { items, ...(tasks.length > MAX_TASKS ? { cut: `${tasks.length - MAX_TASKS} more are not listed.` } : {}) } };
    },
  }),
  tool({
    name: 'run_task',
    description:
      'Runs a task of the workspace by name (see list_tasks), once the user allows it, in its terminal; answers with its exit code and the tail of its output. A background task (a watcher) is left running after its first output.',
    input: {
      name: z.string().min(1).max(200),
      source: z.string().min(1).max(200).optional().describe('The task\u2019s source, when two tasks have the name'),
    },
    timeoutMs: RUN_MS + ASK_MS,
    async run({ name, source }, context, abandoned) {
      const named = (await vscode.tasks.fetchTasks()).filter((t) => ofSession(t, context) && t.name === name && (!source || t.source === source));
      if (named.length === 0) return { error: `No task named \u201c${name}\u201d${source ? ` from ${source}` : ''}; list_tasks lists them.` };
      if (named.length > 1)
        return { error: `${named.length} tasks are named \u201c${name}\u201d (from ${named.map((t) => t.source).join(', ')}); give its source too.` };
      const task = named[0]!;
      if (running(task)) return { error: `\u201c${name}\u201d is running already; wait for it to end, or ask the user to stop it.` };
      const how = plan(task, context);
      if (how.kind === 'refused') return { error: `\u201c${name}\u201d was not run: ${how.why}. The user can run it from Terminal > Run Task.` };
      const { executable, args, folder, env } = how.view;
      // The question is withdrawn after a while: the run's own time does not start late.
      const asked = await context.askToRun(
        taskQuestion(task.name, how.view, how.fingerprint, process.platform === 'win32'),
        { task: task.name, source: task.source, executable, args, ...(folder ? { folder } : {}), env },
        AbortSignal.any([abandoned, AbortSignal.timeout(ASK_MS)]),
      );
      if (!asked.allowed)
        return asked.why === 'rejected'
          ? { value: { ran: false, note: 'The user did not allow the task to run.' } }
          : { error: 'The question was withdrawn (it waited too long, the turn was cancelled, or the session ended); the task did not run.' };
      const answer = await afterApproval(task, how, context, abandoned);
      asked.finish(!('error' in answer) && isSuccess(answer.value), 'error' in answer ? answer.error : outputOf(answer.value));
      return answer;
    },
  }),
];

/** Runs `task` as approved: the tools still allowed, and a task VS Code runs itself still the one asked about. */
async function afterApproval(task: vscode.Task, how: Plan, context: ToolContext, abandoned: AbortSignal): Promise<ToolAnswer> {
  const refused = context.allowed('run_task');
  if (refused) return { error: refused };
  if (how.kind === 'native') {
    // VS Code looks the task up again as it runs it: one changed while the user was asked is not run.
    const now = (await vscode.tasks.fetchTasks()).find((t) => t.name === task.name && t.source === task.source);
    const again = now && plan(now, context);
    if (!again || again.kind === 'refused' || again.fingerprint !== how.fingerprint)
      return { error: 'The task, or a value it takes from a setting, changed while the user was asked; it did not run.' };
  }
  if (running(task)) return { error: `\u201c${task.name}\u201d started meanwhile; it was not run again.` };
  return runTask(task, how, abandoned);
}

/** Whether a task of that name, source and definition runs now (the user's own run of it, say). */
function running(task: vscode.Task): boolean {
  const key = JSON.stringify(task.definition);
  return vscode.tasks.taskExecutions.some(
    (e) => e.task.name === task.name && e.task.source === task.source && JSON.stringify(e.task.definition) === key,
  );
}

/** Whether `task` is this session's: of one of its folders, or of the whole workspace when the session works in it. */
function ofSession(task: vscode.Task, context: ToolContext): boolean {
  const scope = task.scope;
  if (scope !== undefined && typeof scope === 'object')
    return context.folders.some((f) => samePath(f, scope.uri.fsPath)) && scope.uri.scheme === 'file';
  // A user's or the workspace file's task runs in the workspace: not in a worktree chat's folder.
  const workspace = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  return context.folders.every((f) => workspace.some((w) => samePath(w, f)));
}

function samePath(a: string, b: string): boolean {
  const [x, y] = [path.resolve(a), path.resolve(b)];
  return process.platform === 'win32' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

/** How `task` is run: through our pseudoterminal when its shell or process and variables are known here. */
function plan(task: vscode.Task, context: ToolContext): Plan {
  const execution = task.execution;
  const folder = task.scope !== undefined && typeof task.scope === 'object' ? task.scope.uri.fsPath : undefined;
  const vars = variables(folder);
  // A user's or the workspace file's task runs in the session's first folder, as VS Code runs it in the first one.
  const cwd = folder ?? context.folders[0];
  const windows = process.platform === 'win32';
  // The values settings and the environment give it are part of what decides the run (VS Code resolves them as it
  // runs a task itself): a setting changed after the question is another run.
  let resolved: readonly string[] = [];
  const fingerprintOf = () => fingerprint([task.name, task.source, task.definition, describe(execution), resolved]);
  const shown = (executable: string, args: readonly string[], written: string[], options?: { cwd?: string; env?: Record<string, string> }) => {
    // A setting in the environment it sets is checked as its line is (cmd expands %NAME% in a line before it reads it);
    // the user's own environment there is the user's.
    const fromSettings = Object.values(options?.env ?? {}).filter((value) => value.includes('${config:'));
    const outside = valuesFromOutside([...written, ...fromSettings, ...(options?.cwd ? [options.cwd] : [])], vars);
    resolved = outside.values;
    const view: TaskCommandView = {
      executable,
      args,
      ...(options?.cwd !== undefined && !sameFolder(options.cwd, cwd, vars) ? { folder: options.cwd } : {}),
      env: { ...options?.env },
      notes: outside.notes,
    };
    return { view, unsafe: outside.unsafe };
  };
  if (execution instanceof vscode.ShellExecution) {
    const text = (v: string | vscode.ShellQuotedString) => (typeof v === 'string' ? v : v.value);
    const raw = execution.commandLine ?? shellLine(text(execution.command ?? ''), (execution.args ?? []).map(text), windows);
    const options = execution.options;
    const shell = options?.executable;
    const shellArgs = options?.shellArgs;
    const defaultShell = vscode.env.shell || (windows ? 'cmd.exe' : '/bin/sh');
    // A shell of the task's own without its arguments gets VS Code's defaults for it (-c, /d /c, -Command), and on
    // Windows the quoting is the shell's: VS Code runs those.
    const { view, unsafe } = shown(
      shell ?? defaultShell,
      [...(shellArgs ?? (shell ? [] : defaultShellArgs(defaultShell, windows))), raw],
      [raw, ...(shell ? [shell] : []), ...(shellArgs ?? [])],
      options,
    );
    // Its line goes to a shell: a value from a setting or the environment there could be a command of its own.
    if (unsafe) return { kind: 'refused', line: raw, view, why: unsafe, fingerprint: fingerprintOf() };
    const native = (why: string): Plan => ({ kind: 'native', line: raw, view, why, fingerprint: fingerprintOf() });
    if (shell ? shellArgs === undefined : windows && execution.commandLine === undefined) return native('VS Code quotes it for its shell');
    return captured(raw, view, options, vars, cwd, native, (line, dir, env) =>
      shell
        ? { file: shell, args: [...(shellArgs ?? []), line], shell: false, cwd: dir, env }
        : { file: line, args: [], shell: defaultShell, cwd: dir, env },
    );
  }
  if (execution instanceof vscode.ProcessExecution) {
    const raw = shellLine(execution.process, execution.args, windows);
    const { view, unsafe } = shown(execution.process, execution.args, [execution.process, ...execution.args], execution.options);
    const native = (why: string): Plan => ({ kind: 'native', line: raw, view, why, fingerprint: fingerprintOf() });
    // Windows starts a .cmd or .bat only through its shell: VS Code runs process tasks there.
    if (windows)
      return unsafe ? { kind: 'refused', line: raw, view, why: unsafe, fingerprint: fingerprintOf() } : native('VS Code starts processes on Windows');
    const all = [execution.process, ...execution.args].map((a) => resolveVariables(a, vars));
    const [file, ...args] = all.map((a) => ('text' in a ? a.text : ''));
    const unresolved = all.find((a) => 'unresolved' in a);
    if (unresolved && 'unresolved' in unresolved) return native(`VS Code resolves its ${unresolved.unresolved}`);
    return captured(raw, view, execution.options, vars, cwd, native, (_line, dir, env) => ({ file: file!, args, shell: false, cwd: dir, env }));
  }
  const line = `${task.source}: ${JSON.stringify(task.definition)}`;
  return {
    kind: 'native',
    line,
    view: { executable: `the ${task.source} extension`, args: [JSON.stringify(task.definition)], env: {}, notes: [] },
    why: 'it is run by its extension',
    fingerprint: fingerprintOf(),
  };
}

/** The arguments Node gives `shell` before a line, as VS Code's default shell runs it. */
function defaultShellArgs(shell: string, windows: boolean): string[] {
  return windows && /(^|[\\/])cmd(\.exe)?$/i.test(shell) ? ['/d', '/s', '/c'] : ['-c'];
}

/** Whether the task's folder as written (`${workspaceFolder}`, say) is `folder`. */
function sameFolder(written: string, folder: string | undefined, vars: TaskVariables): boolean {
  const resolved = resolveVariables(written, vars);
  return folder !== undefined && 'text' in resolved && samePath(path.resolve(folder, resolved.text), folder);
}

function captured(
  raw: string,
  view: TaskCommandView,
  options: vscode.ShellExecutionOptions | vscode.ProcessExecutionOptions | undefined,
  vars: TaskVariables,
  folder: string | undefined,
  native: (why: string) => Plan,
  command: (line: string, cwd: string | undefined, env: NodeJS.ProcessEnv) => RunCommand,
): Plan {
  const line = resolveVariables(raw, vars);
  const cwd = options?.cwd === undefined ? { text: folder ?? '' } : resolveVariables(options.cwd, vars);
  const overrides: Record<string, string> = {};
  let unresolved = 'unresolved' in line ? line.unresolved : 'unresolved' in cwd ? cwd.unresolved : undefined;
  for (const [key, value] of Object.entries(options?.env ?? {})) {
    const resolved = resolveVariables(value, vars);
    if ('text' in resolved) overrides[key] = resolved.text;
    else unresolved ??= resolved.unresolved;
  }
  if (unresolved !== undefined || !('text' in line) || !('text' in cwd)) return native(`VS Code resolves its ${unresolved ?? 'variables'}`);
  const run = command(line.text, cwd.text || undefined, { ...process.env, ...overrides });
  return { kind: 'captured', line: raw, view, command: run, fingerprint: fingerprint([run.file, run.args, run.shell, run.cwd, overrides]) };
}

/** A short digest of what decides a run, shown in the question: a rule made from it holds for that run only. */
function fingerprint(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 8);
}

/** A task's execution as data, for its fingerprint. */
function describe(execution: vscode.Task['execution']): unknown {
  if (execution instanceof vscode.ShellExecution) return { shell: [execution.commandLine, execution.command, execution.args, execution.options] };
  if (execution instanceof vscode.ProcessExecution) return { process: [execution.process, execution.args, execution.options] };
  return execution ? 'custom' : 'none';
}

function variables(folder: string | undefined): TaskVariables {
  return {
    folder,
    folders: new Map((vscode.workspace.workspaceFolders ?? []).map((f) => [f.name, f.uri.fsPath])),
    home: os.homedir(),
    env: process.env,
    separator: path.sep,
    config: (key) => {
      const value = vscode.workspace.getConfiguration(undefined, folder ? vscode.Uri.file(folder) : undefined).get<unknown>(key);
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    },
  };
}

interface Ran {
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly stillRunning?: boolean;
  readonly output?: string;
  readonly note?: string;
}

async function runTask(task: vscode.Task, how: Plan, abandoned: AbortSignal): Promise<ToolAnswer> {
  // Listening from before the task starts: a quick one may end before executeTask answers.
  const ends = new TaskEnds();
  try {
    if (how.kind === 'captured') {
      const run = new CapturedRun(how.command);
      const copy = new vscode.Task(
        task.definition,
        task.scope ?? vscode.TaskScope.Workspace,
        task.name,
        task.source,
        new vscode.CustomExecution(async () => run),
        task.problemMatchers,
      );
      copy.isBackground = task.isBackground;
      copy.presentationOptions = task.presentationOptions;
      if (task.group) copy.group = task.group;
      if (task.detail) copy.detail = task.detail;
      const execution = await vscode.tasks.executeTask(copy);
      // Its process's end; or the task's, when VS Code ended it without starting it.
      const unstarted = ends
        .of(execution)
        .then(() => Promise.race([run.exited, new Promise<{ exitCode: null }>((resolve) => setTimeout(() => resolve({ exitCode: null }), 1000))]));
      const end = await settled(Promise.race([run.exited, unstarted]), task.isBackground, abandoned);
      if (end === 'stopped') execution.terminate();
      return { value: ran(end, run.output(), task) };
    }
    const execution = await vscode.tasks.executeTask(task);
    const end = await settled(ends.of(execution), task.isBackground, abandoned);
    if (end === 'stopped') execution.terminate();
    return { value: { ...ran(end, '', task), note: `Its output is in the task's terminal: it was not captured, as ${how.why}.` } };
  } catch (error) {
    return { error: `The task could not be run: ${errorMessage(error)}` };
  } finally {
    ends.dispose();
  }
}

/** The ends of tasks from its making on, by execution: a process's exit code, or a task's end without one. */
class TaskEnds implements vscode.Disposable {
  private readonly codes = new Map<vscode.TaskExecution, number | undefined>();
  private readonly waiting = new Map<vscode.TaskExecution, (end: { exitCode: number | undefined }) => void>();
  private readonly subscriptions = new DisposableStore(
    vscode.tasks.onDidEndTaskProcess((e) => this.ended(e.execution, e.exitCode)),
    // A process's end comes first; a task without a process ends without a code.
    vscode.tasks.onDidEndTask((e) => this.ended(e.execution, undefined)),
  );

  /** When `execution` ends. */
  of(execution: vscode.TaskExecution): Promise<{ exitCode: number | undefined }> {
    if (this.codes.has(execution)) return Promise.resolve({ exitCode: this.codes.get(execution) });
    return new Promise((resolve) => this.waiting.set(execution, resolve));
  }

  private ended(execution: vscode.TaskExecution, exitCode: number | undefined): void {
    if (this.codes.has(execution)) return;
    this.codes.set(execution, exitCode);
    this.waiting.get(execution)?.({ exitCode });
    this.waiting.delete(execution);
  }

  dispose(): void {
    this.subscriptions.dispose();
    this.codes.clear();
  }
}

/** The task's end; or, for a background task, that it is still running after a while; or that it was stopped. */
async function settled<T>(ended: Promise<T>, background: boolean, abandoned: AbortSignal): Promise<T | 'running' | 'stopped'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      ended,
      new Promise<'running' | 'stopped'>((resolve) => {
        timer = setTimeout(() => resolve(background ? 'running' : 'stopped'), background ? BACKGROUND_MS : RUN_MS);
        onAbort = () => resolve('stopped');
        if (abandoned.aborted) onAbort();
        else abandoned.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) abandoned.removeEventListener('abort', onAbort);
  }
}

function ran(end: { exitCode?: number | null; signal?: string | null } | 'running' | 'stopped', output: string, task: vscode.Task): Ran {
  const tail = clipStart(plainTerminalText(output), MAX_OUTPUT_CHARS);
  if (end === 'running') return { stillRunning: true, output: tail, note: `${task.name} is a background task: it goes on running in its terminal.` };
  if (end === 'stopped')
    return {
      exitCode: null,
      output: tail,
      note: `${task.name} was stopped: it ran longer than ${RUN_MS / 60_000} minutes, or the call was cancelled.`,
    };
  return { exitCode: end.exitCode ?? null, ...(end.signal ? { signal: end.signal } : {}), output: tail };
}

/** The end of `text`, at most `max` characters, saying that its start was cut. */
function clipStart(text: string, max: number): string {
  return text.length <= max ? text : `[${text.length - max} characters before are cut]\n${text.slice(text.length - max)}`;
}

function isSuccess(value: unknown): boolean {
  const r = value as Ran;
  return r.stillRunning === true || r.exitCode === 0;
}

function outputOf(value: unknown): string {
  const r = value as Ran & { ran?: boolean };
  const status = r.stillRunning ? 'still running' : r.exitCode === undefined ? '' : `exit code ${r.exitCode ?? 'none'}`;
  return [r.output ?? '', status, r.note ?? ''].filter(Boolean).join('\n');
}
