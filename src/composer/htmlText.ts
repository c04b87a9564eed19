// A page of HTML as Markdown (turndown): what it says and links to, without its head, scripts, styles, forms or
// embedded objects. Runs in its own worker (pageText.ts): a hostile page may take long or nest deeply, and the
// extension host's thread must not wait for it. Pure.
import TurndownService from 'turndown';

const LEFT_OUT = new Set([
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
  'button',
  'select',
]);

export function htmlToMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove((node) => LEFT_OUT.has(node.nodeName.toLowerCase()));
  // Images carry no text the agent can use beyond their description.
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as HTMLElement).getAttribute('alt');
      return alt ? `[image: ${alt}]` : '';
    },
  });
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
