// What runs after its turn ended, above the composer: "Running in background (N)", each item with the time since it
// started, the last lines of its output, and Stop for a command the client runs; what only the agent can stop says
// so, and can be dismissed.
import { useEffect, useState } from 'preact/hooks';
import type { BackgroundView } from '../../src/chat/protocol';
import { background } from '../intents';
import { elapsed } from '../elapsed';
import { t } from '../l10n';

export function Background({ items }: { items: readonly BackgroundView[] }) {
  const now = useNow(items.length > 0);
  if (items.length === 0) return null;
  return (
    <section class="background" aria-labelledby="background-heading">
      <h2 id="background-heading" class="background-heading">
        <span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true" />
        {t('Running in background ({0})', items.length)}
      </h2>
      <ul>
        {items.map((item) => (
          <li key={item.key} class="background-item">
            <div class="background-head">
              <span class="background-title" title={item.title}>
                {item.title}
              </span>
              {/* Not live: a screen reader would read the clock every second. */}
              <span class="quiet background-elapsed">{elapsed(now - item.startedAt)}</span>
              {item.stop === 'kill' ? (
                <button type="button" class="secondary" aria-label={t('Stop {0}', item.title)} onClick={() => background(item.key, 'stop')}>
                  {t('Stop')}
                </button>
              ) : (
                <>
                  <span class="quiet">{t('Only the agent can stop it')}</span>
                  <button type="button" class="secondary" aria-label={t('Dismiss {0}', item.title)} onClick={() => background(item.key, 'dismiss')}>
                    {t('Dismiss')}
                  </button>
                </>
              )}
            </div>
            {item.tail && <pre class="background-tail">{item.tail}</pre>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The time now, once a second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
