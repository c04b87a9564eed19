// Agent markdown to HTML, safely: markdown-it with raw HTML off (any tag in agent text is shown as text), links
// only to web, mail and file addresses (everything else stays text), no remote images, and code blocks highlighted
// by highlight.js with Copy and Insert at Cursor buttons. Clicks on links and buttons are handled by the view.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';
import { hasBidiControls, showBidiControls } from '../src/chat/protocol';
import { t } from './l10n';

const languages = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

/**
 * Code longer than this is shown without highlighting (it would cost more than it gives while streaming), and so is
 * code with a line longer than HIGHLIGHT_LINE: highlight.js's patterns are quadratic in one long token (40,000
 * letters in a row took 30 s).
 */
const HIGHLIGHT_LIMIT = 100_000;
const HIGHLIGHT_LINE = 1_000;

/** True when no line of `code` is longer than HIGHLIGHT_LINE. */
function shortLines(code: string): boolean {
  let start = 0;
  for (let nl = code.indexOf('\n'); nl !== -1; nl = code.indexOf('\n', start)) {
    if (nl - start > HIGHLIGHT_LINE) return false;
    start = nl + 1;
  }
  return code.length - start <= HIGHLIGHT_LINE;
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
// `![alt](url)` would fetch from anywhere; the CSP blocks it anyway, so show it as the link it is.
md.disable('image');

const SAFE_LINK = /^(https?:|mailto:|file:)/i;
/** Web, mail and file links, and links without a scheme (relative paths, `#L12`); nothing else becomes a link. */
md.validateLink = (url: string): boolean => {
  const trimmed = url.trim();
  if (hasBidiControls(trimmed)) return false; // it could disguise where it leads; the host refuses it too
  if (SAFE_LINK.test(trimmed)) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed);
  return scheme === null || /^[a-z]:[\\/]/i.test(trimmed); // a Windows drive letter is not a scheme
};

const escape = md.utils.escapeHtml;

md.renderer.rules['fence'] = (tokens, index) => {
  const token = tokens[index];
  if (!token) return '';
  const language = token.info.trim().split(/\s+/)[0] ?? '';
  const code = token.content;
  let body: string;
  if (language && hljs.getLanguage(language) && code.length <= HIGHLIGHT_LIMIT && shortLines(code)) {
    body = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } else {
    body = escape(code);
  }
  const name = language || t('code');
  const label = escape(name);
  return (
    `<div class="code-block">` +
    `<div class="code-toolbar"><span class="code-language">${label}</span>` +
    `<button type="button" class="icon-button" data-code-action="copy" title="${escape(t('Copy'))}" aria-label="${escape(t('Copy {0}', name))}"><span class="codicon codicon-copy" aria-hidden="true"></span></button>` +
    `<button type="button" class="icon-button" data-code-action="insert" title="${escape(t('Insert at Cursor'))}" aria-label="${escape(t('Insert {0} at Cursor', name))}"><span class="codicon codicon-insert" aria-hidden="true"></span></button>` +
    // A long line scrolls sideways: tabindex lets the keyboard reach the block to scroll it.
    `</div><pre tabindex="0"><code class="hljs${language ? ` language-${escape(language)}` : ''}">${body}</code></pre></div>`
  );
};

// Links carry their target for the view's click handler; the webview never navigates by itself.
const defaultLinkOpen = md.renderer.rules['link_open'] ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules['link_open'] = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const href = token?.attrGet('href') ?? '';
  token?.attrSet('title', href);
  return defaultLinkOpen(tokens, index, options, env, self);
};

// Bidirectional-text controls in a link's text are shown by name ("[U+202E]") rather than removed: removing them
// would show the text in a different order than the agent meant, silently, while showing them tells the reader that
// the text was made to read differently from what it is. In ordinary text they are kept: there they only reorder
// words, and right-to-left languages use them.
md.core.ruler.push('bidi_in_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let depth = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') depth++;
      else if (token.type === 'link_close') depth = Math.max(0, depth - 1);
      else if (depth > 0 && (token.type === 'text' || token.type === 'code_inline')) token.content = showBidiControls(token.content);
    }
  }
});

export function renderMarkdown(text: string): string {
  return md.render(text);
}
