// Keeping secrets out of logs and bug reports. Two guards:
//   - `redact` replaces, in any JSON value, what is secret by its place: every value of an `env` or `headers` object
//     (or of their ACP spelling, a list of {name, value}), and string values under keys that look like secrets
//     (token, key, secret, password, auth, credential…), and an `accounts` list (a person's details, which
//     `auth/status` says clients should not log) whole. Used on settings and on traced payloads.
//   - `SecretScrubber` replaces known secret values wherever they turn up in text: an agent that prints its
//     environment to stderr, or echoes a token in a reply, does not get it into the log.

export const REDACTED = '<redacted>';

/** A value that `redact` hid, with the name it was found under. */
export interface Secret {
  readonly name: string;
  readonly value: string;
}

/** Keys whose values are name → value maps of things that are often secret. */
const VARIABLE_KEYS: ReadonlySet<string> = new Set(['env', 'headers']);
/**
 * Keys whose whole value is a person's details, hidden whole (not secrets to scrub elsewhere): the accounts of the
 * unstable `auth/status`, which the schema says clients should not log.
 */
const PERSONAL_KEYS: ReadonlySet<string> = new Set(['accounts']);
/** Whole words of a key that mark it secret (`key` but not `keyboard`, `auth` but not `author`). */
const SECRET_WORDS: ReadonlySet<string> = new Set(['key', 'auth', 'pwd', 'pass', 'oauth', 'bearer', 'cookie', 'jwt', 'pat']);
/** Parts of a key that mark it secret wherever they appear (`PGPASSWORD`, `accessToken`, `clientSecret`). */
const SECRET_PARTS = /token|secret|passw(?:or)?d|passphrase|credential|apikey|authorization|private_?key/i;
/** Nesting beyond this is not walked; what is deeper is replaced whole, so nothing slips through unread. */
const MAX_DEPTH = 64;

/** Whether a key's name says its value is a secret. */
export function isSecretKey(key: string): boolean {
  if (SECRET_PARTS.test(key)) return true;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SECRET_WORDS.has(word));
}

/**
 * `value` with its secrets replaced by `<redacted>`. Copy on write: when nothing is secret, the same value comes back
 * (callers can tell by identity that nothing changed). Names are kept; only values are hidden.
 */
export function redact(value: unknown): unknown {
  return walk(value, undefined, 0);
}

/** What `redact` would hide in `value`, with the names they were found under. */
export function secretsIn(value: unknown): Secret[] {
  const found: Secret[] = [];
  walk(value, found, 0);
  return found;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(value: unknown, found: Secret[] | undefined, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = walk(item, found, depth + 1);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  let out: Json | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Json)[key];
    let next: unknown;
    if (PERSONAL_KEYS.has(key) && item !== undefined && item !== null) next = REDACTED;
    else if (VARIABLE_KEYS.has(key.toLowerCase())) next = variables(item, key, found, depth + 1);
    else if (typeof item === 'string' && item !== '' && isSecretKey(key)) next = hide(key, item, found);
    else next = walk(item, found, depth + 1);
    if (next !== item) (out ??= { ...(value as Json) })[key] = next;
  }
  return out ?? value;
}

function hide(name: string, value: string, found: Secret[] | undefined): string {
  found?.push({ name, value });
  return REDACTED;
}

/** The values of an `env`/`headers` entry: `{NAME: value}`, `[{name, value}]` (ACP) or `["NAME=value"]`. */
function variables(value: unknown, key: string, found: Secret[] | undefined, depth: number): unknown {
  if (typeof value === 'string') return value === '' ? value : hide(key, value, found);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      let next: unknown;
      if (isObject(item) && typeof item['value'] === 'string') {
        const name = typeof item['name'] === 'string' ? item['name'] : key;
        next = { ...(walk(item, found, depth + 1) as Json), value: hide(name, item['value'], found) };
      } else if (typeof item === 'string') {
        const eq = item.indexOf('=');
        next = eq > 0 ? `${item.slice(0, eq + 1)}${hide(item.slice(0, eq), item.slice(eq + 1), found)}` : hide(key, item, found);
      } else {
        next = walk(item, found, depth + 1);
      }
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (isObject(value)) {
    let out: Json | undefined;
    for (const name of Object.keys(value)) {
      const item = value[name];
      const next = typeof item === 'string' || typeof item === 'number' ? hide(name, String(item), found) : walk(item, found, depth + 1);
      if (next !== item) (out ??= { ...value })[name] = next;
    }
    return out ?? value;
  }
  return value;
}

/** Values shorter than this are not scrubbed from text: "1", "true" or a port number would mangle every line. */
const MIN_SCRUBBED_LENGTH = 6;

/**
 * Replaces known secret values in text with `<redacted NAME>`. It learns values and never forgets them during a
 * session: an agent started with an old setting may still be running.
 */
export class SecretScrubber {
  /** Value → name; kept sorted longest first, so a value that contains another is replaced whole. */
  private entries: (readonly [string, string])[] = [];
  private readonly known = new Set<string>();

  learn(secrets: Iterable<Secret>): void {
    let added = false;
    for (const { name, value } of secrets) {
      // JSON escapes quotes, backslashes and control characters: a traced payload holds the escaped spelling.
      for (const spelling of new Set([value, JSON.stringify(value).slice(1, -1)])) {
        if (spelling.length < MIN_SCRUBBED_LENGTH || this.known.has(spelling)) continue;
        this.known.add(spelling);
        this.entries.push([spelling, `<redacted ${name}>`]);
        added = true;
      }
    }
    if (added) this.entries.sort((a, b) => b[0].length - a[0].length);
  }

  get size(): number {
    return this.entries.length;
  }

  scrub(text: string): string {
    for (const [value, replacement] of this.entries) {
      if (text.includes(value)) text = text.split(value).join(replacement);
    }
    return text;
  }
}
