// Tolerant parsing for what agents send. The generated schemas use these helpers where the official schema
// says a field falls back to its default on error, or an array skips invalid items. Whatever is dropped is
// reported as a warning to the caller of `parseTolerant`, so nothing disappears silently.
import { z } from 'zod';

export type ParseOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string; readonly warnings: readonly string[] };

// Warnings of the parse in progress. Parsing is synchronous, so one collector at a time is enough; it is only
// set for the duration of `parseTolerant`.
let collector: string[] | undefined;

function note(what: string, input: unknown, issues: readonly z.core.$ZodIssue[]): void {
  if (!collector) return;
  const first = issues[0];
  const where = first && first.path.length ? ` at ${first.path.join('.')}` : '';
  collector.push(`ignored ${what} ${preview(input)}${where}: ${first?.message ?? 'invalid'}`);
}

/** How deep `preview` looks into nested values; what is deeper is shown as `…`. */
const PREVIEW_DEPTH = 6;
/** How many items of an array or keys of an object `preview` visits before it writes `…`. */
const PREVIEW_ITEMS = 100;

/**
 * A short, single-line rendering of a value for log lines and error messages: JSON, cut to `max` characters plus `…`.
 * Bounded whatever the value (log lines are built from what agents send): it walks at most `PREVIEW_DEPTH` levels
 * and `PREVIEW_ITEMS` entries per level, cuts strings before escaping them, and stops as soon as `max` characters
 * are written. A value that fits comes out as `JSON.stringify` would write it.
 */
export function preview(value: unknown, max = 80): string {
  const out = new BoundedText(max);
  try {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') out.put(String(value));
    else write(out, value, 0, []);
  } catch {
    // A getter or `toJSON` threw: what was written so far is still worth showing.
    out.truncated = true;
  }
  return out.text();
}

class BoundedText {
  private readonly parts: string[] = [];
  private length = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  /** Whether more than `max` characters are written: the rest is not worth producing. */
  get full(): boolean {
    return this.length > this.max;
  }

  /** How many more characters are useful (one more than fits, so that the cut shows). */
  get room(): number {
    return Math.max(0, this.max + 1 - this.length);
  }

  put(text: string): void {
    if (this.full) return;
    const part = text.length > this.room ? text.slice(0, this.room) : text;
    this.parts.push(part);
    this.length += part.length;
  }

  text(): string {
    const text = this.parts.join('');
    return text.length > this.max || this.truncated ? `${text.slice(0, this.max)}…` : text;
  }
}

/** Writes `value` as JSON into `out`, stopping when it is full. `seen` holds the objects being written (cycles). */
function write(out: BoundedText, value: unknown, depth: number, seen: object[]): void {
  if (out.full) return;
  if (value === null || value === undefined || typeof value === 'function' || typeof value === 'symbol') return out.put('null');
  if (typeof value === 'string') return out.put(JSON.stringify(value.length > out.room ? value.slice(0, out.room) : value));
  if (typeof value === 'number') return out.put(Number.isFinite(value) ? String(value) : 'null');
  if (typeof value === 'boolean' || typeof value === 'bigint') return out.put(String(value));
  if (typeof value !== 'object') return out.put(String(value));
  const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const json: unknown = toJSON.call(value);
    // A `toJSON` that returns an object is written one level deeper, so a chain of them ends.
    return typeof json === 'object' && json !== null
      ? depth < PREVIEW_DEPTH
        ? write(out, json, depth + 1, seen)
        : out.put('…')
      : write(out, json, depth, seen);
  }
  if (depth >= PREVIEW_DEPTH || seen.includes(value)) return out.put('…');
  seen.push(value);
  if (Array.isArray(value)) {
    out.put('[');
    for (let i = 0; i < value.length && !out.full; i++) {
      if (i > 0) out.put(',');
      if (i === PREVIEW_ITEMS) {
        out.put('…');
        break;
      }
      write(out, value[i], depth + 1, seen);
    }
    out.put(']');
  } else {
    out.put('{');
    let written = 0;
    // V8 lists every key of an object before the first one can be read, whatever the API (`for…in` is slower
    // still): linear in the object's size, like the JSON.parse that made it.
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length && !out.full; i++) {
      const key = keys[i] as string;
      if (i === PREVIEW_ITEMS) {
        out.put(written > 0 ? ',…' : '…');
        break;
      }
      const item: unknown = (value as Record<string, unknown>)[key];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      if (written++ > 0) out.put(',');
      out.put(JSON.stringify(key.length > out.room ? key.slice(0, out.room) : key));
      out.put(':');
      write(out, item, depth + 1, seen);
    }
    out.put('}');
  }
  seen.pop();
}

/** An optional field whose invalid value is dropped with a warning (x-deserialize-default-on-error). */
export function lenient<T extends z.ZodType>(schema: T) {
  return z.optional(
    schema.catch((ctx) => {
      note('invalid value', ctx.input, ctx.error.issues);
      return undefined as z.output<T>;
    }),
  );
}

/** A required field with a default that replaces an invalid value, with a warning. */
export function recover<T extends z.ZodType>(schema: T, fallback: z.output<T>) {
  return schema.catch((ctx) => {
    note('invalid value', ctx.input, ctx.error.issues);
    return fallback;
  });
}

/** An optional field that the schema does not allow to be null: null is read as "absent". */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.optional(schema.nullable().transform((v): z.output<T> | undefined => (v === null ? undefined : v)));
}

/** An array whose invalid items are dropped with a warning (x-deserialize-skip-invalid-items). */
export function lenientArray<T extends z.ZodType>(item: T) {
  return z.array(z.unknown()).transform((items) => {
    const kept: z.output<T>[] = [];
    for (const value of items) {
      const r = item.safeParse(value);
      if (r.success) kept.push(r.data);
      else note('invalid item', value, r.error.issues);
    }
    return kept;
  });
}

/** A readable, one-line account of why a value does not match a schema. */
function describeError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Parses `value`, collecting the warnings of every lenient field on the way. */
export function parseTolerant<S extends z.ZodType>(schema: S, value: unknown): ParseOutcome<z.output<S>> {
  const outer = collector;
  const warnings: string[] = [];
  collector = warnings;
  try {
    const r = schema.safeParse(value);
    return r.success ? { ok: true, value: r.data, warnings } : { ok: false, error: describeError(r.error), warnings };
  } catch (error) {
    // zod throws rather than reports for some values (an intersection whose sides read a lenient field differently:
    // "Unmergable intersection"). Still the params' fault, so still invalid params, never an internal error.
    return { ok: false, error: `the params cannot be read (${error instanceof Error ? error.message.slice(0, 200) : 'unknown'})`, warnings };
  } finally {
    collector = outer;
  }
}
