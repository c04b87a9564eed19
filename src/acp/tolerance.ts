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

/** A short, single-line rendering of a value for log lines and error messages. */
export function preview(value: unknown, max = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
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
export function describeError(error: z.ZodError): string {
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
  } finally {
    collector = outer;
  }
}
