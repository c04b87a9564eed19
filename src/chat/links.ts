// Where a link in agent text may lead. Web and mail links go to VS Code's opener; file links open in the editor
// (the host checks they are inside the workspace); every other scheme (command:, vscode:, javascript:, data:, …)
// is refused. Pure: no `vscode`, unit-tested in Node.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type LinkTarget =
  | { readonly kind: 'web'; readonly uri: string }
  | { readonly kind: 'file'; readonly path: string; /** 1-based */ readonly line?: number }
  | { readonly kind: 'refused'; readonly reason: string };

const WEB_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** `cwd` resolves relative paths; without it, only absolute paths and web links are followed. */
export function linkTarget(href: string, cwd: string | undefined): LinkTarget {
  const text = href.trim();
  if (text === '') return { kind: 'refused', reason: 'the link is empty' };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  // A Windows drive letter ("C:\…") looks like a scheme of one letter.
  if (scheme !== undefined && !(scheme.length === 1 && /^[a-zA-Z]:[\\/]/.test(text))) {
    if (WEB_SCHEMES.has(`${scheme}:`)) {
      try {
        return { kind: 'web', uri: new URL(text).href };
      } catch {
        return { kind: 'refused', reason: `the link is not a valid address: ${text}` };
      }
    }
    if (scheme !== 'file') return { kind: 'refused', reason: `links of the kind "${scheme}:" are not opened from the chat` };
    try {
      const url = new URL(text);
      const line = lineOf(url.hash);
      url.hash = '';
      return withLine(fileURLToPath(url), line);
    } catch {
      return { kind: 'refused', reason: `the link is not a valid file address: ${text}` };
    }
  }
  // A path, maybe with "#L12", "#12" or ":12" (":12:5") after it.
  let path = text;
  let line: number | undefined;
  const hash = /#(L?\d+)(?:-L?\d+)?$/.exec(path);
  if (hash) {
    line = lineOf(`#${hash[1]}`);
    path = path.slice(0, hash.index);
  } else {
    const colon = /:(\d+)(?::\d+)?$/.exec(path);
    if (colon) {
      line = Number(colon[1]);
      path = path.slice(0, colon.index);
    }
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep it as written
  }
  if (path === '' || path.includes('\0')) return { kind: 'refused', reason: 'the link has no path' };
  if (!isAbsolute(path)) {
    if (!cwd) return { kind: 'refused', reason: `${path} is relative and the chat has no folder` };
    path = resolve(cwd, path);
  }
  return withLine(path, line);
}

function lineOf(hash: string): number | undefined {
  const match = /^#L?(\d+)/.exec(hash);
  return match ? Number(match[1]) : undefined;
}

function withLine(path: string, line: number | undefined): LinkTarget {
  return line !== undefined && line > 0 ? { kind: 'file', path, line } : { kind: 'file', path };
}
