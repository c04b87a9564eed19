// The worst inputs known for each function that runs over text an agent, a workspace, a terminal or a registry
// controls: each was quadratic (or worse) once, or is the likeliest to become so. The unit tests run each at 1 MB
// and check what it returns; `npm run bench:text` times each at two sizes and prints the ratio (linear is about the
// ratio of the sizes).
import { TerminalState } from '../../src/acp/sessionState';
import { OutputTail } from '../../src/acp/terminals';
import { longestRun, trimTrailing } from '../../src/acp/text';
import { plainTerminalText } from '../../src/common/ansi';
import { oneLine, problemsText, terminalText } from '../../src/composer/contextText';
import { parsePromptFile } from '../../src/composer/promptFiles';
import { isEmail } from '../../src/chat/protocol';
import { elicitationViews, urlView } from '../../src/chat/elicitationViews';
import { lineDelta } from '../../src/common/lineDelta';
import { checkPath } from '../../src/common/paths';
import { fenced as reportFence } from '../../src/diagnostics/report';
import { fenced as exportFence } from '../../src/history/exportMarkdown';
import { nameOf, summarize, type Transcript } from '../../src/history/format';
import { fold, hitsIn } from '../../src/history/searchMatch';
import { parseRegistry } from '../../src/registry/format';
import { renderMarkdown } from '../../webview/markdown';

export interface TextCase {
  readonly name: string;
  /** The input for about `bytes` characters. */
  readonly make: (bytes: number) => unknown;
  /** Runs the function; throws when what it returned is wrong. */
  readonly run: (input: never) => void;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

const chat = (text: string): Transcript => ({
  v: 1,
  agent: 'Agent',
  sessionId: 's',
  cwd: '/w',
  updatedAt: '2026-01-01T00:00:00.000Z',
  entries: [{ t: 'agent', text }],
});

const diffLinesOf = (prefix: string, bytes: number) =>
  Array.from({ length: Math.max(1, Math.floor(bytes / 8)) }, (_, i) => `${prefix}${i}`).join('\n');

export const TEXT_CASES: readonly TextCase[] = [
  {
    name: 'search: fold, a letter with a long run of mixed combining marks',
    make: (n) => 'a' + '\u0301\u0316'.repeat(n / 2),
    run: (text: string) => check(fold(text) === 'a', 'the marks are folded away'),
  },
  {
    name: 'search: a match highlighted in a token of one letter and its marks ("th" in t+marks+he)',
    make: (n) => chat('t' + '\u0301'.repeat(n) + 'he'),
    run: (t: Transcript) => check(hitsIn(t, summarize(t), 'th').length === 1, 'one hit'),
  },
  {
    name: 'questions: the email check on an address without a dot',
    make: (n) => 'a@' + 'b'.repeat(n),
    run: (text: string) => check(!isEmail(text), 'not an email'),
  },
  {
    name: 'questions: a form whose default and choices are megabytes',
    make: (n) => 'x'.repeat(n),
    run: (big: string) => {
      const [view] = elicitationViews([
        {
          id: 1,
          message: big,
          form: {
            type: 'object',
            properties: {
              e: { type: 'string', format: 'email', default: big },
              c: { type: 'string', enum: [big, 'small'] },
            },
          },
        },
      ]);
      const fields = view?.form?.fields ?? [];
      check(fields[0]?.default === undefined && fields[1]?.options?.length === 1, 'the oversized default and choice are left out');
    },
  },
  {
    name: 'questions: a url question with a megabyte of userinfo and bidi controls',
    make: (n) => 'https://' + 'a\u202E'.repeat(n / 2) + '@example.com/',
    run: (url: string) => check(urlView(url, false).url.length <= 9000 * 8, 'clipped and shown'),
  },
  {
    name: '@problems: a message of spaces without a line break',
    make: (n) => ' '.repeat(n) + 'x',
    run: (message: string) => {
      check(oneLine(message) === message, 'nothing to join');
      check(problemsText([{ path: 'a.ts', line: 1, column: 1, severity: 'error', message }]).endsWith('x'), 'one line');
    },
  },
  {
    name: '@terminal: output of line breaks',
    make: (n) => 'x' + '\n'.repeat(n) + 'y' + '\n'.repeat(n),
    run: (output: string) =>
      check(terminalText({ commandLine: 'c', output, truncated: false, exitCode: 0 }).endsWith('y\n(exit code 0)'), 'trailing breaks trimmed'),
  },
  {
    name: 'terminals: ANSI stripping of escape runs and carriage returns',
    make: (n) => '\x1b['.repeat(n / 4) + '\r'.repeat(n / 2) + 'done',
    run: (raw: string) => check(plainTerminalText(raw).endsWith('done'), 'plain text'),
  },
  {
    name: 'terminals: a million one-character chunks of output into a bounded tail',
    make: (n) => n,
    run: (count: number) => {
      const state = new TerminalState();
      for (let i = 0; i < count; i++) state.append('x', 256 * 1024);
      check(state.text.length === Math.min(count, 256 * 1024), 'the tail is bounded');
    },
  },
  {
    name: 'terminals: the kept bytes of a command\u2019s output past its bound, in 16 KB chunks',
    make: (n) => n,
    run: (bytes: number) => {
      const tail = new OutputTail(bytes / 2);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      for (let sent = 0; sent < bytes; sent += chunk.length) tail.append(chunk);
      check(tail.byteLength === bytes / 2, 'half is kept');
    },
  },
  {
    name: 'paths: an agent\u2019s path of a megabyte, refused without a look at the disk',
    make: (n) => `/w${'/a'.repeat(n / 2)}`,
    run: (path: string) => check(checkPath(path, ['/w']).kind === 'invalid', 'refused'),
  },
  {
    name: 'transcripts: the name of a resource link of ?# and no path',
    make: (n) => '#'.repeat(n) + '\nx',
    run: (uri: string) => check(nameOf(uri) === uri, 'no path: the link itself'),
  },
  {
    name: 'prompt files: a file of invalid UTF-8 cut at 256 KB, and a name of slashes',
    make: (n) => ({ text: '\ufffd'.repeat(n) + 'x', name: '/'.repeat(n) + 'a.prompt.md' }),
    run: (file: { text: string; name: string }) => {
      check(parsePromptFile('a.prompt.md', file.text).body.length < file.text.length, 'cut');
      check(parsePromptFile(file.name, 'body').name === 'a', 'named by its last segment');
    },
  },
  {
    name: 'export and diagnostics: a fence around runs of backticks',
    make: (n) => '`a'.repeat(n / 2),
    run: (body: string) => {
      check(exportFence(body, 'text').startsWith('``'), 'fenced');
      check(reportFence('text', body)[0] === '```text', 'fenced (no stack overflow from 500,000 runs)');
      check(longestRun(body, '`') === 1 && trimTrailing(body, 'a') !== body, 'helpers');
    },
  },
  {
    name: 'changes: line counts of a diff where every line differs',
    make: (n) => ({ before: diffLinesOf('a', n), after: diffLinesOf('b', n) }),
    run: (texts: { before: string; after: string }) => check(lineDelta(texts.before, texts.after).added > 0, 'counted (estimated past the bound)'),
  },
  {
    name: 'chat: a code block of one long token, highlighted',
    make: (n) => '```java\n' + 'a'.repeat(n) + '\n```\n',
    run: (markdown: string) => check(renderMarkdown(markdown).includes('code-block'), 'rendered'),
  },
  {
    name: 'registry: a list whose every field is a megabyte',
    make: (n) => ({
      version: '1.0.0',
      agents: [
        {
          id: 'a'.repeat(n),
          name: 'n'.repeat(n),
          version: '1.0.0' + '.'.repeat(n),
          description: 'd',
          distribution: { npx: { package: '@'.repeat(n) } },
        },
      ],
    }),
    run: (doc: unknown) => check(parseRegistry(doc).registry.agents.length === 0, 'skipped'),
  },
];
