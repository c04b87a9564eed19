// What a drop on the composer carries from VS Code's Explorer or an editor tab: URIs. Pure: no DOM, unit-tested in Node.
/** The URIs VS Code puts on a drag from the Explorer or a tab (its own type first, then the standard list). */
export function droppedUris(data: { getData(type: string): string } | null | undefined): string[] {
  if (!data) return [];
  const list = data.getData('application/vnd.code.uri-list') || data.getData('text/uri-list');
  return list
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .slice(0, MAX_DROPPED);
}

/** URIs taken from one drop at most. */
const MAX_DROPPED = 100;
