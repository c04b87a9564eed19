// What a task runs, as text: the variables of tasks.json that need no question to the user resolved (folders, the
// home folder, environment and settings), and a command with its arguments joined into one shell line. A variable
// that needs the editor's state or the user (${file}, ${input:…}, ${command:…}) is left for VS Code to resolve by
// running the task itself. Plain Node: no `vscode`.

/** What the variables of one task stand for. */
export interface TaskVariables {
  /** The task's workspace folder, if it has one. */
  readonly folder: string | undefined;
  /** Every workspace folder by name, for ${workspaceFolder:name}. */
  readonly folders: ReadonlyMap<string, string>;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly separator: string;
  /** A setting's value as text, for ${config:…}; undefined when it is not a string, a number or a boolean. */
  config(key: string): string | undefined;
}

/** `text` with its variables resolved, or the first one that cannot be resolved here. */
export function resolveVariables(text: string, vars: TaskVariables): { text: string } | { unresolved: string } {
  let unresolved: string | undefined;
  const resolved = text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    const value = variable(name, vars);
    if (value === undefined) unresolved ??= whole;
    return value ?? whole;
  });
  return unresolved === undefined ? { text: resolved } : { unresolved };
}

function variable(name: string, vars: TaskVariables): string | undefined {
  const [head, ...rest] = name.split(':');
  const arg = rest.join(':');
  switch (head) {
    case 'workspaceFolder':
    case 'workspaceRoot':
      return arg ? vars.folders.get(arg) : vars.folder;
    case 'workspaceFolderBasename': {
      const folder = arg ? vars.folders.get(arg) : vars.folder;
      return folder?.split(/[\\/]/).filter(Boolean).at(-1);
    }
    case 'cwd':
      return vars.folder;
    case 'userHome':
      return vars.home;
    case 'pathSeparator':
    case '/':
      return vars.separator;
    case 'env':
      return arg ? (vars.env[arg] ?? '') : undefined;
    case 'config':
      return arg ? vars.config(arg) : undefined;
    default:
      return undefined;
  }
}

/**
 * A command and its arguments as one line for a POSIX shell or Windows' cmd: an argument with a space or a quote is
 * quoted (weak quoting, as VS Code's default for tasks), the others are left as written.
 */
export function shellLine(command: string, args: readonly string[], windows: boolean): string {
  const quote = (value: string) => {
    if (value !== '' && !/[\s"'`]/.test(value)) return value;
    return windows ? `"${value.replace(/"/g, '""')}"` : `'${value.replace(/'/g, `'\\''`)}'`;
  };
  return [command, ...args].map(quote).join(' ');
}

/** Characters a POSIX shell, cmd or PowerShell acts on inside a line: a value with one could run a command of its own. */
// eslint-disable-next-line no-control-regex -- a control character in a shell line is what this looks for
const SHELL_ACTIVE = /[;&|`$()<>"'*?[\]{}!#^%\u0000-\u001f]/;

/**
 * The variables of `texts` whose value comes from a setting (which a workspace's settings.json, and so an agent, can
 * write) or the environment, with where each comes from; `unsafe` names the first whose value has a character a shell
 * acts on, which would enter a shell line as code. Such a line is not run: quoting the value would change what the
 * task means, and its author wrote it for a plain value.
 */
export function valuesFromOutside(
  texts: readonly string[],
  vars: TaskVariables,
): { readonly notes: readonly string[]; readonly unsafe: string | undefined; readonly values: readonly string[] } {
  const notes = new Set<string>();
  const values: string[] = [];
  let unsafe: string | undefined;
  for (const text of texts)
    for (const [whole, head, arg] of text.matchAll(/\$\{(config|env):([^}]*)\}/g)) {
      const value = head === 'config' ? vars.config(arg!) : vars.env[arg!];
      values.push(`${whole}=${value ?? ''}`);
      // A setting's value is shown (a workspace, or an agent, may have written it); the environment's is not (a secret).
      const shown = head === 'config' && value !== undefined ? ` (${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}\u2026` : value)})` : '';
      const from = head === 'config' ? `the setting \u201c${arg}\u201d${shown}` : `the environment variable ${arg}`;
      notes.add(`${whole} is ${from}`);
      if (unsafe === undefined && value !== undefined && SHELL_ACTIVE.test(value))
        unsafe = `${whole} (${from}) has a character a shell acts on (${JSON.stringify(value.match(SHELL_ACTIVE)![0])})`;
    }
  return { notes: [...notes], unsafe, values };
}
