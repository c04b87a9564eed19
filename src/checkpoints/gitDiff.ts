// What git says changed between two snapshots (`git diff-tree -r -z -M --raw --numstat`), read into one record per
// file. Plain Node.

export interface FileChange {
  readonly status: 'M' | 'A' | 'D' | 'R';
  /** Relative to the work tree, '/'-separated. For R, the new path. */
  readonly path: string;
  readonly oldPath?: string; // R only
  readonly added: number; // lines, from numstat
  readonly removed: number;
}

/** Parses `git diff-tree -r -z -M --raw --numstat`: first every raw record, then every numstat record, in one order. */
export function parseDiff(stdout: Buffer): FileChange[] {
  const tokens = stdout.toString('utf8').split('\0');
  const raw: { status: FileChange['status']; path: string; oldPath?: string; pair: boolean }[] = [];
  let i = 0;
  // A raw record: ":<modes> <oids> <status>", then one path, or two for a rename or copy.
  while (i < tokens.length && tokens[i]?.startsWith(':')) {
    const letter = (tokens[i] as string).split(' ').pop()?.[0] ?? 'M';
    if (letter === 'R' || letter === 'C') {
      const oldPath = tokens[i + 1] as string;
      const newPath = tokens[i + 2] as string;
      raw.push(letter === 'R' ? { status: 'R', path: newPath, oldPath, pair: true } : { status: 'A', path: newPath, pair: true });
      i += 3;
    } else {
      // T (a file became a link or the reverse) is a modification for a user.
      raw.push({ status: letter === 'A' || letter === 'D' ? letter : 'M', path: tokens[i + 1] as string, pair: false });
      i += 2;
    }
  }
  const changes: FileChange[] = [];
  const count = (value: string) => (/^\d+$/.test(value) ? Number(value) : 0);
  for (const { pair, ...entry } of raw) {
    // "<added>\t<removed>\t<path>", or "<added>\t<removed>\t" then old and new path for a rename; "-" when binary.
    const [added = '0', removed = '0'] = (tokens[i] ?? '').split('\t');
    i += pair ? 3 : 1;
    changes.push({ ...entry, added: count(added), removed: count(removed) });
  }
  return changes;
}
