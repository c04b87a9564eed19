// A deterministic stream of `session/update` notifications shaped like a busy real session: mostly text chunks,
// with thoughts, tool calls and their updates (statuses, content, locations), plans and usage in between.

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

const WORDS = ['the', 'agent', 'reads', 'src/index.ts', 'and', 'finds', 'a', 'bug', 'in', 'parse()', 'so', 'it', 'edits', 'config.json', '—', 'naïve', '🙂', 'done.'];

export function updateLines(count: number, sessionId = 'sess-1', seed = 42): string[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const lines: string[] = [];
  let tool = 0;
  let message = 0;
  const push = (update: Record<string, unknown>) =>
    lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }));
  while (lines.length < count) {
    const r = rand();
    if (r < 0.6) {
      push({ sessionUpdate: 'agent_message_chunk', messageId: `m${message}`, content: { type: 'text', text: `${words(1 + Math.floor(rand() * 6))} ` } });
      if (rand() < 0.01) message++;
    } else if (r < 0.7) {
      push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${words(4)} ` } });
    } else if (r < 0.73) {
      tool++;
      push({ sessionUpdate: 'tool_call', toolCallId: `call_${tool}`, title: `Read ${pick(WORDS)}`, kind: pick(['read', 'edit', 'execute', 'search']), status: 'pending', rawInput: { path: `/ws/src/file${tool}.ts` } });
    } else if (r < 0.9) {
      push({ sessionUpdate: 'tool_call_update', toolCallId: `call_${Math.max(1, tool)}`, status: pick(['in_progress', 'in_progress', 'completed']), title: `Working on ${pick(WORDS)}` });
    } else if (r < 0.93) {
      push({
        sessionUpdate: 'tool_call_update',
        toolCallId: `call_${Math.max(1, tool)}`,
        status: 'completed',
        content: [
          { type: 'content', content: { type: 'text', text: words(12) } },
          { type: 'diff', path: `/ws/src/file${tool}.ts`, oldText: 'let a = 1;\n', newText: 'const a = 1;\n' },
        ],
        locations: [{ path: `/ws/src/file${tool}.ts`, line: 1 + Math.floor(rand() * 200) }],
      });
    } else if (r < 0.95) {
      push({
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'high', status: 'completed' },
          { content: 'Fix the bug', priority: 'medium', status: pick(['pending', 'in_progress']) },
          { content: 'Run the tests', priority: 'low', status: 'pending' },
        ],
      });
    } else {
      push({ sessionUpdate: 'usage_update', used: Math.floor(rand() * 100000), size: 200000, cost: { amount: rand(), currency: 'USD' } });
    }
  }
  return lines;
}
