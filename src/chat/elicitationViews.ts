// The agent's questions (elicitations) as the chat shows them: the message, a url to open, or a form whose fields
// the view renders. Bounded in every size the agent chooses. Pure: no `vscode`, unit-tested in Node.
import type * as S from '../acp/schema.gen';
import type { PendingElicitation } from '../acp/elicitations';
import { clip as clipText } from '../acp/text';
import { domainToUnicode } from 'node:url';
import { showBidiControls, type ElicitationFieldView, type ElicitationView } from './protocol';

/** Bounds on a question's size the chat shows, whatever the agent sends. */
const MAX_FIELDS = 50;
const MAX_OPTIONS = 200;
const MAX_TEXT = 2000;
/** The longest choice value or default kept: a longer one is left out whole (cutting it would change the answer). */
const MAX_VALUE = 10_000;
const fits = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_VALUE;

/** The agent's questions waiting for the user, as the chat shows them. */
export function elicitationViews(questions: readonly PendingElicitation[]): ElicitationView[] {
  return questions.map((q) => ({
    id: q.id,
    message: clip(q.message, 8 * MAX_TEXT),
    ...(q.toolCallId ? { toolCallId: q.toolCallId } : {}),
    ...(q.form ? { form: formView(q.form) } : {}),
    ...(q.url ? { url: urlView(q.url.url, q.opened === true) } : {}),
  }));
}

function clip(text: string, max = MAX_TEXT): string {
  return clipText(text, max);
}

/**
 * A url question's address as the chat shows it: bidirectional-text controls as their names (they could make the
 * address read as another), where its host is in it (as written, in any case), and the host's other spelling when
 * it is an international name (punycode beside the Unicode, or the Unicode beside the punycode).
 */
export function urlView(url: string, opened: boolean): NonNullable<ElicitationView['url']> {
  const shown = showBidiControls(clip(url, 8192));
  // The host is what the URL parser says (it is where Open goes); the text is searched for it only to emphasise it
  // where it is written. scheme://[userinfo@]host, one pass, anchored; a backslash ends a host, as for the parser.
  let parsed: string | undefined;
  try {
    parsed = new URL(url).hostname;
  } catch {
    // Not a URL: shown whole, and Open refuses it.
  }
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@\\]*@)?(\[[^\]/?#\\]*\]|[^/?#:@\\]*)/i.exec(shown);
  const written = match?.[1] ?? '';
  const unicode = parsed ? domainToUnicode(parsed) : '';
  const same = parsed !== undefined && written !== '' && (written.toLowerCase() === parsed || written.toLowerCase() === unicode);
  const host = same ? written : (parsed ?? '');
  const hostAt = same && match ? match[0].length - written.length : -1;
  // An international host's other spelling: punycode beside the Unicode it is written in, or the reverse.
  const other = parsed && unicode && unicode !== parsed ? (host.toLowerCase() === parsed ? unicode : parsed) : undefined;
  return { url: shown, host, hostAt, ...(other ? { otherHost: other } : {}), opened };
}

function formView(schema: S.ElicitationSchema): NonNullable<ElicitationView['form']> {
  const required = new Set(schema.required ?? []);
  const fields: ElicitationFieldView[] = [];
  const unsupported: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {}).slice(0, MAX_FIELDS)) {
    const field = fieldView(name, property, required.has(name));
    if (field) fields.push(field);
    else unsupported.push(clip(name, 200));
  }
  return { ...(schema.title ? { title: clip(schema.title) } : {}), fields, unsupported };
}

function fieldView(name: string, p: S.ElicitationPropertySchema, required: boolean): ElicitationFieldView | undefined {
  const prop = p as Record<string, unknown>;
  const num = (key: string) => (typeof prop[key] === 'number' ? { [key]: prop[key] as number } : {});
  const text = (key: string) => (typeof prop[key] === 'string' && prop[key] !== '' ? clip(prop[key] as string) : undefined);
  const description = text('description');
  const base = { name: clip(name, 200), label: text('title') ?? clip(name, 200), ...(description ? { description } : {}), required };
  const options = (list: unknown): { value: string; title: string }[] | undefined => {
    if (!Array.isArray(list)) return undefined;
    return list.slice(0, MAX_OPTIONS).flatMap((o: unknown) => {
      if (fits(o)) return [{ value: o, title: clip(o, 500) }];
      const option = o as { const?: unknown; title?: unknown };
      return fits(option?.const) ? [{ value: option.const, title: clip(typeof option.title === 'string' ? option.title : option.const, 500) }] : [];
    });
  };
  switch (prop['type']) {
    case 'string': {
      const choices = options(prop['oneOf']) ?? options(prop['enum']);
      const format = prop['format'];
      const dflt = fits(prop['default']) ? { default: prop['default'] } : {};
      if (choices) return { ...base, kind: 'select', options: choices, ...dflt };
      return {
        ...base,
        kind: 'text',
        ...(format === 'email' || format === 'uri' || format === 'date' || format === 'date-time' ? { format } : {}),
        ...num('minLength'),
        ...num('maxLength'),
        ...dflt,
      };
    }
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: prop['type'],
        ...num('minimum'),
        ...num('maximum'),
        ...(typeof prop['default'] === 'number' ? { default: prop['default'] } : {}),
      };
    case 'boolean':
      return { ...base, kind: 'boolean', ...(typeof prop['default'] === 'boolean' ? { default: prop['default'] } : {}) };
    case 'array': {
      const items = prop['items'] as Record<string, unknown> | undefined;
      const choices = options(items?.['anyOf']) ?? options(items?.['enum']);
      if (!choices) return undefined;
      const dflt = Array.isArray(prop['default']) ? { default: (prop['default'] as unknown[]).slice(0, MAX_OPTIONS).filter(fits) } : {};
      return { ...base, kind: 'multiselect', options: choices, ...num('minItems'), ...num('maxItems'), ...dflt };
    }
    default:
      return undefined;
  }
}
