// "5 minutes ago", "yesterday": when a session last changed, as history lists show it. Pure: unit-tested in Node.

const STEPS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** How long ago `iso` was, in the user's language; undefined when it is not a date. */
export function relativeTime(iso: string | undefined, now: number, locale?: string): string | undefined {
  if (!iso) return undefined;
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return undefined;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  let amount = (then - now) / 1000;
  if (Math.abs(amount) < 45) return format.format(0, 'second');
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return format.format(Math.round(amount), unit);
    amount /= size;
  }
  return undefined;
}
