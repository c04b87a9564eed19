// The busy spinner, turned in steps by a timer rather than by a CSS animation. While any CSS animation runs, the
// compositor draws a new frame at every vsync (60 a second), whatever its steps(): measured in the UI benchmark
// (headless Chromium, software compositing), codicon's spin animation made two to three times as many frames drawn
// during the flood, about 8 ms of CPU each, more than the chat's own rendering took. Eight steps a second draw eight
// frames.
import { useEffect, useRef } from 'preact/hooks';

const STEP_MS = 125;
const STEPS = 12;

/** The spinners on the page; one timer turns them all, and only while there is one. */
const spinners = new Set<HTMLElement>();
let timer: number | undefined;
let step = 0;

const angle = () => `rotate(${(step * 360) / STEPS}deg)`;

function turn() {
  step = (step + 1) % STEPS;
  const transform = angle();
  for (const el of spinners) el.style.transform = transform;
}

export function Spinner() {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.transform = angle();
    spinners.add(el);
    timer ??= window.setInterval(turn, STEP_MS);
    return () => {
      spinners.delete(el);
      if (spinners.size === 0) {
        window.clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return <span ref={ref} class="codicon codicon-loading" aria-hidden="true" />;
}
