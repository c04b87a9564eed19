// The words of the search index and their postings: the ids of the chats a word occurs in, increasing, kept as one
// number (most words occur in one chat) or as varint gaps in a growable byte array (a byte or two per chat). Plain
// Node.
/** One id (most words occur in a single chat), or ids coded as varint gaps from the previous one (from -1). */
export type Postings = number | PackedIds;

interface PackedIds {
  bytes: Uint8Array;
  /** Bytes in use. */
  used: number;
  last: number;
}

function putGap(packed: PackedIds, id: number): void {
  let gap = id - packed.last;
  packed.last = id;
  if (packed.used + 5 > packed.bytes.length) {
    // Grow by a quarter rather than double: the slack left at the end of every list is what the index wastes.
    const bytes = new Uint8Array(packed.used + Math.max(8, packed.used >> 2));
    bytes.set(packed.bytes.subarray(0, packed.used));
    packed.bytes = bytes;
  }
  while (gap >= 0x80) {
    packed.bytes[packed.used++] = (gap & 0x7f) | 0x80;
    gap >>>= 7;
  }
  packed.bytes[packed.used++] = gap;
}

/** `postings` with `id` appended (greater than every id in it). */
export function appendId(postings: Postings | undefined, id: number): Postings {
  if (postings === undefined) return id;
  if (typeof postings === 'number') {
    const packed: PackedIds = { bytes: new Uint8Array(8), used: 0, last: -1 };
    putGap(packed, postings);
    putGap(packed, id);
    return packed;
  }
  putGap(postings, id);
  return postings;
}

export function forEachId(postings: Postings, visit: (id: number) => void): void {
  if (typeof postings === 'number') {
    visit(postings);
    return;
  }
  const { bytes, used } = postings;
  let id = -1;
  for (let i = 0; i < used;) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[i++] as number;
      gap += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    id += gap;
    visit(id);
  }
}

/**
 * A copy of a word that shares no memory with the text it was cut from. V8 keeps a substring of 13 characters or
 * more as a view of the whole string, so an index key cut from a transcript would keep all of its text alive.
 */
export function detach(word: string): string {
  return word.length < 13 ? word : Buffer.from(word, 'utf8').toString('utf8');
}

/** The first index in `sorted` whose word is not below `word`. */
export function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < word) low = middle + 1;
    else high = middle;
  }
  return low;
}
