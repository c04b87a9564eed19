// A deterministic stream of `session/update` notifications shaped like a busy real session: mostly text chunks,
// with thoughts, tool calls and their updates (statuses, content, locations), plans and usage in between.
import type { Json } from '../../fixtures/lib/peer';
import { toV2 } from '../../fixtures/lib/v2';

/** A small seeded PRNG (mulberry32), so every run sees the same stream. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'the',
  'agent',
  'reads',
  'src/index.ts',
  'and',
  'finds',
  'a',
  'bug',
  'in',
  'parse()',
  'so',
  'it',
  'edits',
  'config.json',
  '—',
  'naïve',
  '🙂',
  'done.',
];

/**
 * `count` lines in the shape of real turns: the agent streams a message or a thought in runs of small chunks,
 * announces tool calls and updates them (status, then content and locations), revises its plan, and reports
 * usage after most steps. The mix by lines is about 60% text chunks, 10% thoughts, 20% tool-call updates,
 * 3% tool calls, 2% plans and 5% usage.
 */
export function updateLines(count: number, sessionId = 'sess-1', seed = 42): string[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const lines: string[] = [];
  let tool = 0;
  let message = 0;
  const push = (update: Record<string, unknown>) =>
    lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }));
  const run = (n: number, f: () => void) => {
    for (let i = 0; i < n && lines.length < count; i++) f();
  };
  while (lines.length < count) {
    const r = rand();
    if (r < 0.186) {
      message++;
      push({ sessionUpdate: 'agent_message_chunk', messageId: `m${message}`, content: { type: 'text', text: '' } });
      run(20 + Math.floor(rand() * 60), () =>
        push({
          sessionUpdate: 'agent_message_chunk',
          messageId: `m${message}`,
          content: { type: 'text', text: `${words(1 + Math.floor(rand() * 6))} ` },
        }),
      );
    } else if (r < 0.225) {
      run(10 + Math.floor(rand() * 60), () => push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${words(4)} ` } }));
    } else if (r < 0.69) {
      tool++;
      const id = `call_${tool}`;
      const path = `/ws/src/file${tool}.ts`;
      push({
        sessionUpdate: 'tool_call',
        toolCallId: id,
        title: `Read ${pick(WORDS)}`,
        kind: pick(['read', 'edit', 'execute', 'search']),
        status: 'pending',
        rawInput: { path },
      });
      run(4 + Math.floor(rand() * 6), () =>
        push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress', title: `Working on ${pick(WORDS)}` }),
      );
      push({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status: 'completed',
        content: [
          { type: 'content', content: { type: 'text', text: words(12) } },
          { type: 'diff', path, oldText: 'let a = 1;\n', newText: 'const a = 1;\n' },
        ],
        locations: [{ path, line: 1 + Math.floor(rand() * 200) }],
      });
    } else {
      push({
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'high', status: 'completed' },
          { content: 'Fix the bug', priority: 'medium', status: pick(['pending', 'in_progress']) },
          { content: 'Run the tests', priority: 'low', status: 'pending' },
        ],
      });
    }
    if (rand() < 0.78)
      push({ sessionUpdate: 'usage_update', used: Math.floor(rand() * 100000), size: 200000, cost: { amount: rand(), currency: 'USD' } });
  }
  return lines.slice(0, count);
}

/**
 * The same stream as ACP v2 says it, as the fixture agent says it over v2 (test/fixtures/lib/v2.ts `toV2`): the same
 * updates and message ids (a message without one gets a random id of the same length every run).
 */
export function updateLinesV2(count: number, sessionId = 'sess-1', seed = 42): string[] {
  const ids = new Map<string, string>();
  return updateLines(count, sessionId, seed).map((line) => {
    const message = JSON.parse(line) as { params: { update: Json } };
    message.params.update = toV2(message.params.update, sessionId, ids) ?? message.params.update;
    return JSON.stringify(message);
  });
}
