// Where the registry's list comes from: the network (with HTTP caching: ETag and Last-Modified), else the last copy
// fetched, else the snapshot shipped with the extension. Each answer says which, and from when. Plain Node.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../acp/log';
import { parseRegistry, type Registry } from './format';
import { RefusedUrlError, type RequestBounds } from '../common/http';
import { getBuffer, refusedUrl } from './net';

export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

export interface LoadedRegistry {
  readonly registry: Registry;
  /** One sentence per entry that was skipped. */
  readonly problems: readonly string[];
  /** Fetched now (or confirmed unchanged), the last copy fetched, or the snapshot shipped with the extension. */
  readonly origin: 'network' | 'cache' | 'snapshot';
  /** When the list was fetched (or, for the snapshot, the date of its data): ISO. */
  readonly date: string;
  /** Why the network was not used, when it was not. */
  readonly offline?: string;
}

const REGISTRY_BOUNDS: RequestBounds = { maxBytes: 8 * 1024 * 1024, idleTimeoutMs: 20_000, totalTimeoutMs: 60_000 };

interface Cached {
  readonly url: string;
  readonly etag?: string;
  readonly lastModified?: string;
  readonly fetchedAt: string;
  readonly body: string;
}

export class RegistrySource {
  private readonly cacheFile: string;

  constructor(
    /** A folder in global storage for the cached copy. */
    cacheDir: string,
    /** The snapshot shipped with the extension: `{date, source, registry}`. */
    private readonly snapshotFile: string,
    private readonly log: Logger,
    private readonly bounds: RequestBounds = REGISTRY_BOUNDS,
  ) {
    this.cacheFile = path.join(cacheDir, 'registry-cache.json');
  }

  /** The registry at `url`. Throws RefusedUrlError for a URL that may not be fetched; otherwise always answers. */
  async load(url: string, options: { signal?: AbortSignal } = {}): Promise<LoadedRegistry> {
    const refused = refusedUrl(url);
    if (refused) throw new RefusedUrlError(`The registry URL was refused: ${refused}.`);
    const cached = await this.readCache(url);
    let offline: string;
    try {
      const headers: Record<string, string> = {};
      if (cached?.etag) headers['if-none-match'] = cached.etag;
      if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
      const response = await getBuffer(url, this.bounds, { headers, signal: options.signal });
      if (response.status === 304 && cached) {
        const fetchedAt = new Date().toISOString();
        await this.writeCache({ ...cached, fetchedAt });
        return { ...this.parse(cached.body, 'the cached registry'), origin: 'network', date: fetchedAt };
      }
      if (response.status !== 200) throw new Error(`the server answered ${response.status}`);
      const body = response.body.toString('utf8');
      const parsed = this.parse(body, url);
      const fetchedAt = new Date().toISOString();
      const etag = header(response.headers.etag);
      const lastModified = header(response.headers['last-modified']);
      await this.writeCache({ url, fetchedAt, body, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) });
      return { ...parsed, origin: 'network', date: fetchedAt };
    } catch (error) {
      if (error instanceof RefusedUrlError) throw error;
      offline = error instanceof Error ? error.message : String(error);
      if (options.signal?.aborted) offline = 'cancelled';
    }
    this.log.warn(`[registry] ${url} could not be fetched (${offline}); using ${cached ? 'the last copy fetched' : 'the shipped snapshot'}`);
    if (cached) {
      try {
        return { ...this.parse(cached.body, 'the cached registry'), origin: 'cache', date: cached.fetchedAt, offline };
      } catch {
        // A damaged cache is as good as none.
      }
    }
    const snapshot = JSON.parse(await fs.readFile(this.snapshotFile, 'utf8')) as { date?: unknown; registry?: unknown };
    return {
      ...this.parse(JSON.stringify(snapshot.registry), 'the shipped snapshot'),
      origin: 'snapshot',
      date: typeof snapshot.date === 'string' ? snapshot.date : '',
      offline,
    };
  }

  /** The last list fetched from `url`, without asking the network: for the once-a-day check's quiet path and for presets. */
  async cachedOrSnapshot(url: string): Promise<LoadedRegistry | undefined> {
    const cached = await this.readCache(url);
    try {
      if (cached) return { ...this.parse(cached.body, 'the cached registry'), origin: 'cache', date: cached.fetchedAt };
      const snapshot = JSON.parse(await fs.readFile(this.snapshotFile, 'utf8')) as { date?: unknown; registry?: unknown };
      return { ...this.parse(JSON.stringify(snapshot.registry), 'the shipped snapshot'), origin: 'snapshot', date: String(snapshot.date ?? '') };
    } catch {
      return undefined;
    }
  }

  private parse(body: string, what: string): { registry: Registry; problems: readonly string[] } {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new Error(`${what} is not JSON`);
    }
    const parsed = parseRegistry(json);
    for (const problem of parsed.problems) this.log.warn(`[registry] ${problem}`);
    return parsed;
  }

  private async readCache(url: string): Promise<Cached | undefined> {
    try {
      const cached = JSON.parse(await fs.readFile(this.cacheFile, 'utf8')) as Partial<Cached>;
      if (cached.url !== url || typeof cached.body !== 'string' || typeof cached.fetchedAt !== 'string') return undefined;
      return cached as Cached;
    } catch {
      return undefined;
    }
  }

  private async writeCache(cached: Cached): Promise<void> {
    try {
      await fs.mkdir(path.dirname(this.cacheFile), { recursive: true });
      const temp = `${this.cacheFile}.${randomUUID()}.tmp`;
      await fs.writeFile(temp, JSON.stringify(cached));
      await fs.rename(temp, this.cacheFile);
    } catch (error) {
      this.log.warn(`[registry] the registry could not be cached (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

function header(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first && first.length <= 1000 ? first : undefined;
}
