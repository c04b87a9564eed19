// The images of the agent's messages, as the page holds them: asked of the host once each (`loadImage`), kept in a
// cache bounded in bytes (the oldest go first), and given to the components that show them. A new whole state (a
// reload, another session) empties it: entry ids are the session's.
import { useEffect, useState } from 'preact/hooks';
import { loadImage } from './intents';

/** Bytes of `data:` URLs kept at most. */
const MAX_CACHED_CHARS = 64 * 1024 * 1024;

/** What the host answered: the image, or why a linked file is not shown. */
export type ImageAnswer = { readonly src: string } | { readonly refused: string };

const cache = new Map<string, ImageAnswer>();
const asked = new Set<string>();
const listeners = new Set<() => void>();
let cachedChars = 0;

const keyOf = (entryId: number, index: number) => `${entryId}:${index}`;

const charsOf = (answer: ImageAnswer) => ('src' in answer ? answer.src.length : answer.refused.length);

/** An image's `src` from the host, or why it is not shown. */
export function receiveImage(entryId: number, index: number, answer: ImageAnswer): void {
  const key = keyOf(entryId, index);
  asked.delete(key);
  if (cache.has(key)) return;
  cache.set(key, answer);
  cachedChars += charsOf(answer);
  for (const [old, value] of cache) {
    if (cachedChars <= MAX_CACHED_CHARS || old === key) break;
    cache.delete(old);
    cachedChars -= charsOf(value);
  }
  for (const listener of listeners) listener();
}

/** Forgets every image (the entries they belong to are gone). */
export function forgetImages(): void {
  cache.clear();
  asked.clear();
  cachedChars = 0;
}

/** The image's `src` (or why not) once the host has sent it; asks for it the first time. */
export function useImage(entryId: number, index: number): ImageAnswer | undefined {
  const key = keyOf(entryId, index);
  const [src, setSrc] = useState(() => cache.get(key));
  useEffect(() => {
    // An image shown stays shown when the cache lets it go (its component holds it); a new one is taken.
    const update = () => {
      const value = cache.get(key);
      if (value !== undefined) setSrc(value);
    };
    listeners.add(update);
    update();
    if (!cache.has(key) && !asked.has(key)) {
      asked.add(key);
      loadImage(entryId, index);
    }
    return () => void listeners.delete(update);
  }, [key]);
  return src;
}
