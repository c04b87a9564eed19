// Ranking workspace files for an `@` mention: the file name counts most, then the path; letters may be skipped.
// Pure: no `vscode`, unit-tested in Node.

/** The best `limit` of `paths` for `query` (workspace-relative, with "/"), best first. */
export function rankFiles(query: string, paths: Iterable<string>, limit: number): string[] {
  const q = query.trim().toLowerCase().replace(/\\/g, '/');
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = q === '' ? 1 : scoreOf(q, path.toLowerCase());
    if (score > 0) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.path);
}

function scoreOf(query: string, path: string): number {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (name === query) return 1000;
  if (name.startsWith(query)) return 800 - name.length;
  const inName = name.indexOf(query);
  if (inName >= 0) return 600 - inName;
  const inPath = path.indexOf(query);
  if (inPath >= 0) return 400 - Math.min(inPath, 200);
  // Letters in order ("apts" finds "app.ts"): better when they fall in the name and close together.
  let at = -1;
  let gaps = 0;
  for (const ch of query) {
    const next = path.indexOf(ch, at + 1);
    if (next < 0) return 0;
    if (at >= 0) gaps += next - at - 1;
    at = next;
  }
  const firstInName = path.indexOf(query[0] ?? '', slash + 1) >= 0 ? 50 : 0;
  return Math.max(1, 200 + firstInName - gaps);
}
