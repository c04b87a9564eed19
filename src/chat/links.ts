// Where a link in agent text may lead. Web and mail links go to VS Code's opener; file links open in the editor
// (the host checks they are inside the workspace); every other scheme (command:, vscode:, javascript:, data:, …)
// is refused, and so is a link with bidirectional-text controls (see bidi.ts). A mail link keeps only its address,
// subject, body, cc and bcc. Pure: no `vscode`, unit-tested in Node.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasBidiControls } from './protocol';

export type LinkTarget =
  | { readonly kind: 'web'; readonly uri: string }
  | { readonly kind: 'file'; readonly path: string; /** 1-based */ readonly line?: number }
  | { readonly kind: 'refused'; readonly reason: string };

const WEB_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** `cwd` resolves relative paths; without it, only absolute paths and web links are followed. */
export function linkTarget(href: string, cwd: string | undefined): LinkTarget {
  const text = href.trim();
  if (text === '') return { kind: 'refused', reason: 'the link is empty' };
  if (hasBidiControls(text))
    return { kind: 'refused', reason: 'the link holds characters that reverse the direction of text, which can disguise where it leads' };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  // A Windows drive letter ("C:\…") looks like a scheme of one letter.
  if (scheme !== undefined && !(scheme.length === 1 && /^[a-zA-Z]:[\\/]/.test(text))) {
    if (WEB_SCHEMES.has(`${scheme}:`)) {
      try {
        const url = new URL(text);
        return { kind: 'web', uri: scheme === 'mailto' ? mailTo(url) : url.href };
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

/** The fields of a mail link passed on to the mail client; others (`attach=`, `attachment=`, …) could make it act. */
const MAIL_FIELDS = new Set(['subject', 'body', 'cc', 'bcc']);

/** A mail link with its address and only the fields of MAIL_FIELDS, as written. */
function mailTo(url: URL): string {
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((field) => {
      const name = field.split('=', 1)[0] ?? '';
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        return false;
      }
      return MAIL_FIELDS.has(decoded.toLowerCase());
    });
  return `mailto:${url.pathname}${kept.length ? `?${kept.join('&')}` : ''}`;
}

function lineOf(hash: string): number | undefined {
  const match = /^#L?(\d+)/.exec(hash);
  return match ? Number(match[1]) : undefined;
}

function withLine(path: string, line: number | undefined): LinkTarget {
  return line !== undefined && line > 0 ? { kind: 'file', path, line } : { kind: 'file', path };
}
