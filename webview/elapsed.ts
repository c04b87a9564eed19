// How long something has run, in the user's words. Pure: unit-tested in plain Node.
import { t } from './l10n';

/** "45 s", "3 min 5 s", "2 h 10 min". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return t('{0} s', s);
  const m = Math.floor(s / 60);
  if (m < 60) return t('{0} min {1} s', m, s % 60);
  return t('{0} h {1} min', Math.floor(m / 60), m % 60);
}
