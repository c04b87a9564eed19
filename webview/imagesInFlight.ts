// Images the page pasted or dropped that are not chips yet: being read (FileReader), or posted (`attachImage`, with
// a name of the page's own) and not yet back from the host. A message sent meanwhile takes them: it waits for the
// reads begun before it, and names the posted ones, so the host waits for them and sends them with it (an Enter
// right after a paste keeps the image). Each is named in one send at most; the host takes it or ignores it.

/** The reads going on, each settling with the token its image was posted with (none when it was given up). */
const reads = new Set<Promise<string | undefined>>();
/** Posted, not yet named in a send: the latest only. */
let posted: string[] = [];
const MAX_POSTED = 20;

/** An image starts being read; call the result once it was posted (with its token) or given up. */
export function readingImage(): (token?: string) => void {
  let finish!: (token: string | undefined) => void;
  const read = new Promise<string | undefined>((resolve) => (finish = resolve));
  reads.add(read);
  let done = false;
  return (token) => {
    if (done) return;
    done = true;
    reads.delete(read);
    if (token !== undefined) posted = [...posted, token].slice(-MAX_POSTED);
    finish(token);
  };
}

/** Whether a send made now would take an image whose chip is not among `onChips` (the composer's chips' tokens). */
export function imagesPending(onChips: readonly (string | undefined)[]): boolean {
  return reads.size > 0 || posted.some((token) => !onChips.includes(token));
}

/**
 * What a send made now takes besides the chips it lists: the images posted whose chips are not among `onChips`, and
 * those being read now, once read. Later pastes are the next message's.
 */
export async function imagesForSend(onChips: readonly (string | undefined)[]): Promise<string[]> {
  const reading = [...reads];
  const named = posted.filter((token) => !onChips.includes(token));
  posted = [];
  const read = (await Promise.all(reading)).filter((token): token is string => token !== undefined);
  posted = posted.filter((token) => !read.includes(token));
  return [...named, ...read];
}
