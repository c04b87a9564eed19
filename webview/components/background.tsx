// What runs after its turn ended, above the composer: "Running in background (N)", each item with the time since it
// started, the last lines of its output, and Stop for a command the client runs; what only the agent can stop says
// so, and can be dismissed.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { BackgroundView } from '../../src/chat/protocol';
import { background } from '../intents';
import { elapsed } from '../elapsed';
import { t } from '../l10n';

export function Background({ items }: { items: readonly BackgroundView[] }) {
  const now = useNow(items.length > 0);
  const list = useRef<HTMLUListElement>(null);
  const said = useAnnouncement(items);
  // A Stop or Dismiss pressed: once its item is gone, the focus goes to the item now in its place, else the composer,
  // never to the page's body.
  const pressed = useRef<{ key: string; index: number } | undefined>(undefined);
  // A command being stopped says so until it has ended (its process group gets a moment to go).
  const [stopping, setStopping] = useState<ReadonlySet<string>>(new Set());
  useLayoutEffect(() => {
    // Until its item is gone, or can no longer be stopped (the agent took back its cancel): then it may be dismissed.
    const left = [...stopping].filter((key) => items.some((item) => item.key === key && item.stop === 'kill'));
    if (left.length < stopping.size) setStopping(new Set(left));
    const press = pressed.current;
    if (!press || items.some((item) => item.key === press.key)) return;
    pressed.current = undefined;
    // Only a focus the removal lost: one the user took elsewhere meanwhile stays where they put it.
    const active = document.activeElement;
    if (active && active !== document.body && !list.current?.contains(active)) return;
    const buttons = list.current?.querySelectorAll<HTMLButtonElement>('li > .background-head > button');
    const next = buttons?.[Math.min(press.index, buttons.length - 1)];
    (next ?? document.querySelector<HTMLTextAreaElement>('textarea[aria-autocomplete]'))?.focus();
  }, [items]);
  const act = (item: BackgroundView, index: number, action: 'stop' | 'dismiss') => {
    if (stopping.has(item.key)) return;
    pressed.current = { key: item.key, index };
    if (action === 'stop') setStopping(new Set([...stopping, item.key]));
    background(item.key, action);
  };
  return (
    <>
      <p class="visually-hidden" role="status">
        {said}
      </p>
      {items.length > 0 && (
        <section class="background" aria-labelledby="background-heading">
          <h2 id="background-heading" class="background-heading">
            <span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true" />
            {t('Running in background ({0})', items.length)}
          </h2>
          <ul ref={list}>
            {items.map((item, index) => (
              <li key={item.key} class="background-item">
                <div class="background-head">
                  <span class="background-title" title={item.title}>
                    {item.title}
                  </span>
                  {/* Not live: a screen reader would read the clock every second. */}
                  <span class="quiet background-elapsed">{elapsed(now - item.startedAt)}</span>
                  {item.stop === 'kill' ? (
                    <button
                      type="button"
                      class="secondary"
                      aria-label={stopping.has(item.key) ? t('Stopping {0}', item.title) : t('Stop {0}', item.title)}
                      aria-disabled={stopping.has(item.key) ? 'true' : undefined}
                      onClick={() => act(item, index, 'stop')}
                    >
                      {stopping.has(item.key) ? t('Stopping…') : t('Stop')}
                    </button>
                  ) : (
                    <>
                      <span class="quiet">{t('Only the agent can stop it')}</span>
                      <button type="button" class="secondary" aria-label={t('Dismiss {0}', item.title)} onClick={() => act(item, index, 'dismiss')}>
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
      )}
    </>
  );
}

/** What a screen reader is told when background work starts (the strip appears) or ends: which item, or all of it. */
function useAnnouncement(items: readonly BackgroundView[]): string {
  const [said, setSaid] = useState('');
  const before = useRef(items);
  useEffect(() => {
    const gone = before.current.filter((old) => !items.some((item) => item.key === old.key));
    const started = before.current.length === 0 && items.length > 0;
    before.current = items;
    if (started) return setSaid(t('Running in background: {0}', items.map((item) => item.title).join(', ')));
    if (gone.length === 0) return;
    setSaid(items.length === 0 ? t('Nothing runs in the background any more') : t('{0} no longer runs in the background', gone[0]!.title));
  }, [items]);
  return said;
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
