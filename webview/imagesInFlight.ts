// Images the page pasted or dropped that are not chips yet: being read (FileReader), or posted (`attachImage`, with
// a name of the page's own) and not yet back from the host. A message sent meanwhile waits for the reads, and names
// the posted ones, so the host waits for them and sends them with it (an Enter right after a paste keeps the image).

let reading = 0;
let waiters: (() => void)[] = [];
/** Posted, not seen back on a chip: the latest only (one the host refused never comes back). */
const posted: string[] = [];
const MAX_POSTED = 20;

/** An image starts being read; call the result once it was posted (with its token) or given up. */
export function readingImage(): (token?: string) => void {
  reading++;
  let done = false;
  return (token) => {
    if (done) return;
    done = true;
    if (token !== undefined) {
      posted.push(token);
      if (posted.length > MAX_POSTED) posted.shift();
    }
    if (--reading === 0) {
      const waiting = waiters;
      waiters = [];
      for (const resolve of waiting) resolve();
    }
  };
}

/** Resolves once no image is being read. */
export function imagesRead(): Promise<void> {
  return reading === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
}

/** The posted images whose chips are not among `onChips` (the tokens the composer's chips carry). */
export function imagesNotBack(onChips: readonly (string | undefined)[]): string[] {
  for (let i = posted.length - 1; i >= 0; i--) if (onChips.includes(posted[i])) posted.splice(i, 1);
  return [...posted];
}
