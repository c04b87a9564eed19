// The shape both `acp.agents` and `acp.mcpServers` share: an object whose keys are display names and whose values
// are objects. Pure (no `vscode`), so the parsers built on it are unit-tested in plain Node.

export interface KeyedSettingNames {
  /** The setting's id, e.g. "acp.agents". */
  readonly setting: string;
  /** What its keys name, plural: "agent names". */
  readonly keys: string;
  /** One entry with its article: "An agent". */
  readonly anEntry: string;
  /** One entry named: "The agent". */
  readonly theEntry: string;
  /** What an entry must be: "an object with a \"command\"". */
  readonly shape: string;
}

/**
 * Hands each entry that is an object with a name to `take`, in the setting's order, and returns one sentence per
 * entry that was skipped (by this check, or by `take` returning why), in that same order.
 */
export function eachEntry(value: unknown, names: KeyedSettingNames, take: (name: string, entry: object) => string | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) return [`The "${names.setting}" setting must be an object whose keys are ${names.keys}.`];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(value)) {
    const problem =
      name.trim() === ''
        ? `${names.anEntry} in "${names.setting}" has an empty name.`
        : typeof entry !== 'object' || entry === null || Array.isArray(entry)
          ? `${names.theEntry} "${name}" in "${names.setting}" must be ${names.shape}.`
          : take(name, entry);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}
