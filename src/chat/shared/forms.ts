// An agent's question as a form: what the user typed in a field, checked and typed as its schema says. Both sides
// use it: the view shows the messages before Submit, the host checks again before it answers the agent.
import { z } from 'zod';
import type { ElicitationFieldView } from './views';
import type { Translate } from './text';

/** What the user typed, picked or ticked in one field. */
export const FieldInput = z.union([z.string().max(100_000), z.boolean(), z.array(z.string().max(10_000)).max(1000)]);
export type FieldInput = z.infer<typeof FieldInput>;

/**
 * One field's value, typed as its schema says (`3`, not `"3"`), or why it is not valid. Both sides use it: the view
 * shows the messages before Submit, the host checks again before it answers the agent. An empty optional field has
 * no value.
 */
export function fieldValue(
  t: Translate,
  field: ElicitationFieldView,
  input: FieldInput | undefined,
): { value?: string | number | boolean | string[]; error?: string } {
  const empty = input === undefined || input === '' || (Array.isArray(input) && input.length === 0 && field.kind !== 'multiselect');
  if (field.kind === 'boolean') return { value: input === true };
  if (field.kind === 'multiselect') {
    const picked = Array.isArray(input) ? input : [];
    const allowed = new Set((field.options ?? []).map((o) => o.value));
    if (picked.some((v) => !allowed.has(v))) return { error: t('Pick from the list.') };
    if (field.required && picked.length === 0) return { error: t('Pick at least one.') };
    if (field.minItems !== undefined && picked.length < field.minItems) return { error: t('Pick at least {0}.', field.minItems) };
    if (field.maxItems !== undefined && picked.length > field.maxItems) return { error: t('Pick at most {0}.', field.maxItems) };
    return picked.length > 0 || field.required ? { value: picked } : {};
  }
  if (empty) return field.required ? { error: t('This is required.') } : {};
  const text = String(input).trim();
  if (field.kind === 'select') {
    return (field.options ?? []).some((o) => o.value === text) ? { value: text } : { error: t('Pick from the list.') };
  }
  if (field.kind === 'number' || field.kind === 'integer') {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) return { error: t('Enter a number.') };
    if (field.kind === 'integer' && !Number.isInteger(n)) return { error: t('Enter a whole number.') };
    if (field.minimum !== undefined && n < field.minimum) return { error: t('Enter {0} or more.', field.minimum) };
    if (field.maximum !== undefined && n > field.maximum) return { error: t('Enter {0} or less.', field.maximum) };
    return { value: n };
  }
  const value = String(input);
  if (field.minLength !== undefined && value.length < field.minLength) return { error: t('Enter at least {0} characters.', field.minLength) };
  if (field.maxLength !== undefined && value.length > field.maxLength) return { error: t('Enter at most {0} characters.', field.maxLength) };
  if (field.format === 'email' && !isEmail(text)) return { error: t('Enter an email address.') };
  if (field.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(text)) return { error: t('Enter an address such as https://example.com.') };
  if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { error: t('Enter a date as YYYY-MM-DD.') };
  if (field.format === 'date-time' && Number.isNaN(Date.parse(text))) return { error: t('Enter a date and time.') };
  return { value };
}

/**
 * `local@domain.tld`: one `@`, no whitespace, a dot inside the domain. Checked in one pass: the regular expression
 * it replaces backtracked quadratically on a long address without a dot.
 */
export function isEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at <= 0 || at !== text.lastIndexOf('@') || /\s/.test(text)) return false;
  const dot = text.indexOf('.', at + 2);
  return dot > 0 && dot < text.length - 1;
}
