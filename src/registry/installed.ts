// The record of agents installed from the registry: `<root>/installed.json` in the extension's global storage, next
// to the installs themselves (`<root>/<id>/<version>/`). It is read again whenever the file changes, so every window
// sees an install or an update made in another. Written whole, through a temporary file. Plain Node.
import { randomUUID } from 'node:crypto';
import { copyFileSync, promises as fs, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Logger } from '../acp/log';

const Record_ = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().min(1),
  version: z.string().min(1),
  kind: z.enum(['binary', 'npx', 'uvx']),
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** For a binary: its install folder. */
  dir: z.string().optional(),
  installedAt: z.string(),
});
export type InstalledAgent = z.infer<typeof Record_>;
const File_ = z.object({ version: z.literal(1), agents: z.array(z.unknown()) });

export class InstalledAgents {
  private readonly file: string;
  private cached: { mtimeMs: number; size: number; agents: InstalledAgent[] } | undefined;
  /** Keeps writes in order. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly root: string,
    private readonly log: Logger,
  ) {
    this.file = path.join(root, 'installed.json');
  }

  /** The installed agents, by id. Cheap: a stat, and a read when the file changed. */
  list(): readonly InstalledAgent[] {
    let stat: { mtimeMs: number; size: number };
    try {
      stat = statSync(this.file);
    } catch {
      return [];
    }
    if (this.cached && this.cached.mtimeMs === stat.mtimeMs && this.cached.size === stat.size) return this.cached.agents;
    const agents = this.read();
    this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, agents };
    return agents;
  }

  get(id: string): InstalledAgent | undefined {
    return this.list().find((a) => a.id === id);
  }

  /** Records `agent` (replacing the record of the same id). */
  put(agent: InstalledAgent): Promise<void> {
    return this.update((agents) => [...agents.filter((a) => a.id !== agent.id), agent]);
  }

  remove(id: string): Promise<void> {
    return this.update((agents) => agents.filter((a) => a.id !== id));
  }

  private update(change: (agents: readonly InstalledAgent[]) => InstalledAgent[]): Promise<void> {
    const next = this.writing.then(async () => {
      const agents = change(this.list()).sort((a, b) => a.id.localeCompare(b.id));
      await fs.mkdir(this.root, { recursive: true });
      const temp = `${this.file}.${randomUUID()}.tmp`;
      await fs.writeFile(temp, `${JSON.stringify({ version: 1, agents }, null, 2)}\n`, { mode: 0o600 });
      await fs.rename(temp, this.file);
      this.cached = undefined;
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** A damaged record is copied aside before the next install writes over it, so it can still be mended by hand. */
  private keepDamaged(): void {
    try {
      copyFileSync(this.file, `${this.file}.damaged`);
    } catch {
      // Nothing to keep.
    }
  }

  private read(): InstalledAgent[] {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.keepDamaged();
      this.log.warn(
        `[registry] ${this.file} could not be read (${error instanceof Error ? error.message : String(error)}); no installed agents are listed`,
      );
      return [];
    }
    const file = File_.safeParse(json);
    if (!file.success) {
      this.keepDamaged();
      this.log.warn(`[registry] ${this.file} is not a record of installed agents; none are listed`);
      return [];
    }
    const agents: InstalledAgent[] = [];
    for (const entry of file.data.agents) {
      const parsed = Record_.safeParse(entry);
      if (parsed.success) agents.push(parsed.data);
      else this.log.warn('[registry] an entry of installed.json was skipped: it is not a valid record');
    }
    return agents;
  }
}
