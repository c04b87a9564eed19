// Reading `session/update`: the fast path is exactly as strict as the schema (a seeded property test), unknown kinds
// are skipped, older field names are mapped, and invalid optional parts are dropped with a warning, never the update.
import * as assert from 'node:assert/strict';
import * as S from '../../../src/acp/schema.gen';
import { parseTolerant } from '../../../src/acp/tolerance';
import { mapLegacyToolCall } from '../../../src/acp/quirks';
import { readSessionUpdate, UPDATE_KINDS } from '../../../src/acp/updates';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pure schema path: legacy names mapped, then the tolerant zod schema. No fast path. */
function schemaPath(params: unknown) {
  if (isObject(params) && isObject(params['update'])) {
    const update = params['update'];
    if (update['sessionUpdate'] === 'tool_call' || update['sessionUpdate'] === 'tool_call_update') {
      const mapped = mapLegacyToolCall(update);
      if (mapped !== update) params = { ...params, update: mapped };
    }
  }
  return parseTolerant(S.SessionNotification, params);
}

/** A canonical form for deep equality in which an own key whose value is undefined is the same as no key. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) {
    const out: Json = {};
    for (const key of Object.keys(value).sort()) if (value[key] !== undefined) out[key] = canonical(value[key]);
    return out;
  }
  return value;
}

const assertSame = (actual: unknown, expected: unknown, message?: string) => assert.deepEqual(canonical(actual), canonical(expected), message);

function read(update: Json, extra: Json = {}) {
  return readSessionUpdate({ sessionId: 'sess-1', update, ...extra });
}

function readOk(update: Json, extra: Json = {}) {
  const r = read(update, extra);
  assert.ok(r.ok, `rejected: ${r.ok ? '' : r.reason}`);
  return { update: r.value.update as unknown as Json, value: r.value as unknown as Json, warnings: r.warnings };
}

// ---- a seeded generator ------------------------------------------------------------------------------------------

class Rng {
  constructor(private state: number) {}
  /** mulberry32 */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}

/** Values that are wrong somewhere: each is valid for some field and invalid for most. */
const TRICKY: readonly unknown[] = [
  undefined,
  null,
  0,
  7,
  -1,
  1.5,
  2 ** 53,
  '',
  'x',
  'browse',
  'success',
  'cancelled',
  'completed',
  'edit',
  'high',
  true,
  false,
  [],
  [{}],
  ['a'],
  {},
  { a: 1 },
  { type: 'text' },
  { type: 'text', text: 'hi' },
  { type: 'text', text: 5 },
  [{ type: 'text', text: 'in an array' }],
  { amount: 1, currency: 'USD' },
  { path: '/a', line: 3 },
];
const KEYS = [
  'sessionId',
  'update',
  '_meta',
  'sessionUpdate',
  'content',
  'messageId',
  'toolCallId',
  'title',
  'name',
  'kind',
  'status',
  'rawInput',
  'rawOutput',
  'locations',
  'id',
  'arguments',
  'output',
  'used',
  'size',
  'cost',
  'entries',
  'type',
  'text',
  'annotations',
  'priority',
  'amount',
  'currency',
  'path',
  'line',
  'terminalId',
  'oldText',
  'newText',
  'extra',
];
const TOOL_KINDS = S.ToolKind.options;
const TOOL_STATUSES = S.ToolCallStatus.options;

function textBlock(g: Rng): Json {
  const block: Json = { type: 'text', text: g.pick(['', 'Hello', 'two\nlines', 'café € 😀']) };
  if (g.chance(0.1)) block['annotations'] = { audience: ['user'], priority: 0.5 };
  if (g.chance(0.1)) block['_meta'] = { source: 'test' };
  return block;
}

function contentBlock(g: Rng): Json {
  return g.pick([
    () => textBlock(g),
    () => ({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }),
    () => ({ type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' }),
    () => ({ type: 'resource', resource: { uri: 'file:///a.ts', text: 'x' } }),
  ])();
}

function toolContent(g: Rng): Json {
  return g.pick([
    () => ({ type: 'content', content: contentBlock(g) }),
    () => ({ type: 'diff', path: '/w/a.ts', oldText: g.pick([null, 'old\n']), newText: 'new\n' }),
    () => ({ type: 'terminal', terminalId: 'term-1' }),
  ])();
}

function location(g: Rng): Json {
  return g.chance(0.5) ? { path: '/w/a.ts' } : { path: '/w/a.ts', line: g.int(100) };
}

function some<T>(g: Rng, make: () => T, max = 3): T[] {
  return Array.from({ length: g.int(max + 1) }, make);
}

function toolFields(g: Rng, update: Json): void {
  if (g.chance(0.5)) update['status'] = g.pick(TOOL_STATUSES);
  if (g.chance(0.5)) update['kind'] = g.pick(TOOL_KINDS);
  if (g.chance(0.3)) update['name'] = g.pick(['Read', 'run_shell_command']);
  if (g.chance(0.3)) update['rawInput'] = g.pick([{}, { path: '/w/a.ts' }, 'ls', [1, 2], 0]);
  if (g.chance(0.2)) update['rawOutput'] = g.pick([{ stdout: 'ok' }, 'done', false]);
  if (g.chance(0.3)) update['content'] = some(g, () => toolContent(g));
  if (g.chance(0.2)) update['locations'] = some(g, () => location(g));
  if (g.chance(0.2)) update['_meta'] = { terminal_output: { terminal_id: 't', data: 'hi\n' } };
}

/** A valid `session/update` params object of a kind that has (or may have) a fast path. */
function validParams(g: Rng): Json {
  const kind = g.pick(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'tool_call_update', 'tool_call', 'usage_update', 'plan']);
  const update: Json = { sessionUpdate: kind };
  switch (kind) {
    case 'tool_call_update':
      update['toolCallId'] = g.pick(['call_1', 'toolu_01AbQ', '0', '']);
      if (g.chance(0.4)) update['title'] = 'Read a.ts';
      toolFields(g, update);
      break;
    case 'tool_call':
      update['toolCallId'] = g.pick(['call_1', 'toolu_01AbQ']);
      update['title'] = g.pick(['Read a.ts', '']);
      toolFields(g, update);
      break;
    case 'usage_update':
      update['used'] = g.int(200_000);
      update['size'] = 200_000;
      if (g.chance(0.5)) update['cost'] = { amount: g.int(1000) / 100, currency: 'USD' };
      break;
    case 'plan':
      update['entries'] = some(
        g,
        () => ({ content: 'step', priority: g.pick(S.PlanEntryPriority.options), status: g.pick(S.PlanEntryStatus.options) }),
        4,
      );
      break;
    default:
      update['content'] = g.chance(0.85) ? textBlock(g) : contentBlock(g);
      if (g.chance(0.4)) update['messageId'] = g.pick(['msg_01', 'm-2', null]);
      if (g.chance(0.1)) update['_meta'] = { a: 1 };
  }
  const params: Json = { sessionId: 'sess-1', update };
  if (g.chance(0.1)) params['_meta'] = { trace: 'abc' };
  return params;
}

/** The objects inside `params` that a mutation may touch. */
function targets(params: unknown): Json[] {
  const found: Json[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 4) return;
    if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (isObject(v)) {
      found.push(v);
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(params, 0);
  return found;
}

/** Fields worth breaking, by kind: the ones the schema (or an older agent) knows, plus an unknown one. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  chunk: ['content', 'messageId', '_meta', 'extra'],
  tool: [
    'toolCallId',
    'title',
    'name',
    'kind',
    'status',
    'rawInput',
    'rawOutput',
    'content',
    'locations',
    '_meta',
    'id',
    'arguments',
    'output',
    'extra',
  ],
  usage_update: ['used', 'size', 'cost', '_meta', 'extra'],
  plan: ['entries', '_meta', 'extra'],
};
const fieldsOf = (kind: unknown) =>
  FIELDS[kind === 'tool_call' || kind === 'tool_call_update' ? 'tool' : String(kind).endsWith('_chunk') ? 'chunk' : String(kind)] ?? KEYS;

function trickyValue(g: Rng): unknown {
  const roll = g.int(100);
  if (roll < 25) return null;
  if (roll < 35) return undefined;
  return structuredClone(g.pick(TRICKY));
}

function mutate(g: Rng, params: Json): unknown {
  const roll = g.int(100);
  if (roll < 2) return g.pick([null, 'params', 7, [params]]);
  const update = params['update'] as Json;
  if (roll < 4) params['update'] = g.pick([null, 'update', [update]]);
  else if (roll < 8) update['sessionUpdate'] = g.pick([...UPDATE_KINDS, 'bogus', 5, undefined]);
  else if (roll < 12) params[g.pick(['sessionId', '_meta', 'extra'])] = trickyValue(g);
  else if (roll < 60) {
    // A field of the update itself.
    const key = g.pick(fieldsOf(update['sessionUpdate']));
    if (g.chance(0.2)) delete update[key];
    else update[key] = trickyValue(g);
  } else {
    // Anything deeper: a content block, a content item, a location, a plan entry, a cost, a _meta.
    const target = g.pick(targets(update));
    const keys = Object.keys(target);
    const op = g.int(3);
    if (op === 0 && keys.length) delete target[g.pick(keys)];
    else if (op === 1 && keys.length) target[g.pick(keys)] = trickyValue(g);
    else target[g.pick(KEYS)] = trickyValue(g);
  }
  return params;
}

// ---- tests -------------------------------------------------------------------------------------------------------

describe('readSessionUpdate', () => {
  it('its fast path is exactly as strict as the schema (5,000 seeded cases)', () => {
    const g = new Rng(20261122);
    const stats = { fast: 0, slow: 0, ok: 0, rejected: 0 };
    for (let i = 0; i < 5000; i++) {
      let input: unknown = validParams(g);
      const mutations = g.chance(0.3) ? 0 : 1 + g.int(3);
      for (let m = 0; m < mutations && isObject(input) && isObject(input['update']); m++) input = mutate(g, input);
      const copy = structuredClone(input);
      const label = `case ${i}: ${JSON.stringify(input)}`;

      const fast = readSessionUpdate(input);
      assertSame(input, copy, `${label}: the input was mutated`);
      const slow = schemaPath(copy);

      assert.equal(fast.ok, slow.ok, `${label}: fast ${fast.ok ? 'accepts' : 'rejects'}, schema ${slow.ok ? 'accepts' : 'rejects'}`);
      if (fast.ok && slow.ok) {
        assertSame(fast.value, slow.value, `${label}: values differ`);
        if (fast.value === input) {
          stats.fast++;
          assert.deepEqual(slow.warnings, [], `${label}: the fast path took a message the schema had to repair`);
        } else {
          stats.slow++;
          assert.deepEqual(fast.warnings, slow.warnings, label);
        }
        stats.ok++;
      } else {
        stats.rejected++;
      }
    }
    // The generator must exercise both paths and both outcomes, or the property proves nothing.
    assert.ok(stats.fast > 1000, `fast path taken ${stats.fast} times`);
    assert.ok(stats.slow > 500, `schema path taken ${stats.slow} times`);
    assert.ok(stats.rejected > 300, `rejected ${stats.rejected} times`);
  });

  describe('unknown kinds', () => {
    for (const kind of ['bogus', 'state_change', 'user_message', '', 'AGENT_MESSAGE_CHUNK']) {
      it(`skips "${kind}" as unknown-kind`, () => {
        const r = read({ sessionUpdate: kind, content: { type: 'text', text: 'x' } });
        assert.equal(r.ok, false);
        assert.equal(!r.ok && r.skipped, 'unknown-kind');
      });
    }

    it('skips a missing or non-string kind as unknown-kind, and a non-object as invalid', () => {
      for (const kind of [undefined, 5, null]) {
        const r = read({ sessionUpdate: kind });
        assert.equal(!r.ok && r.skipped, 'unknown-kind', String(kind));
      }
      for (const params of [null, 'x', [], { sessionId: 's' }, { sessionId: 's', update: 'x' }]) {
        const r = readSessionUpdate(params);
        assert.equal(!r.ok && r.skipped, 'invalid', JSON.stringify(params));
      }
    });

    it('knows every kind of ACP v1', () => {
      assert.deepEqual([...UPDATE_KINDS].sort(), S.SessionUpdate.options.map((o) => o.shape.sessionUpdate.value).sort());
      for (const kind of [
        'agent_message_chunk',
        'tool_call',
        'plan',
        'available_commands_update',
        'current_mode_update',
        'config_option_update',
        'session_info_update',
        'usage_update',
      ]) {
        assert.ok(UPDATE_KINDS.has(kind), kind);
      }
    });
  });

  describe('older field names', () => {
    it('maps tool_call id/name/arguments to toolCallId/title/rawInput', () => {
      const { update, warnings } = readOk({
        sessionUpdate: 'tool_call',
        id: 'grep-1',
        name: 'SearchText',
        arguments: { pattern: 'x' },
        kind: 'search',
        status: 'in_progress',
      });
      assert.equal(update['toolCallId'], 'grep-1');
      assert.equal(update['title'], 'SearchText');
      assert.deepEqual(update['rawInput'], { pattern: 'x' });
      assert.equal(update['id'], undefined);
      assert.equal(update['arguments'], undefined);
      assert.equal(update['kind'], 'search');
      assert.deepEqual(warnings, []);
    });

    it('maps tool_call_update id, status "success" and output', () => {
      const { update } = readOk({ sessionUpdate: 'tool_call_update', id: 'grep-1', status: 'success', output: 'README.md:12' });
      assert.equal(update['toolCallId'], 'grep-1');
      assert.equal(update['status'], 'completed');
      assert.equal(update['rawOutput'], 'README.md:12');
      assert.equal(update['output'], undefined);
      assert.equal(update['id'], undefined);
    });

    it('maps status "success" and output alongside a modern toolCallId', () => {
      const { update } = readOk({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'success', output: { ok: true } });
      assert.equal(update['status'], 'completed');
      assert.deepEqual(update['rawOutput'], { ok: true });
    });

    it('prefers the modern names when both are present', () => {
      const { update } = readOk({
        sessionUpdate: 'tool_call',
        toolCallId: 'new',
        id: 'old',
        title: 'Title',
        name: 'Name',
        rawOutput: 'raw',
        output: 'out',
      });
      assert.equal(update['toolCallId'], 'new');
      assert.equal(update['title'], 'Title');
      assert.equal(update['name'], 'Name');
      assert.equal(update['rawOutput'], 'raw');
      assert.equal(update['id'], 'old', 'an unmapped field is kept as an unknown field');
    });

    it('does not change the message it was given', () => {
      const params = { sessionId: 's', update: { sessionUpdate: 'tool_call_update', id: 'x', status: 'success', output: 1 } };
      const copy = structuredClone(params);
      readSessionUpdate(params);
      assert.deepEqual(params, copy);
    });
  });

  describe('tolerance', () => {
    it('drops an unknown tool kind ("browse") with a warning and keeps the call', () => {
      const { update, warnings } = readOk({ sessionUpdate: 'tool_call', toolCallId: 'w', title: 'Fetching', kind: 'browse', status: 'in_progress' });
      assert.equal(update['kind'], undefined);
      assert.equal(update['title'], 'Fetching');
      assert.equal(update['status'], 'in_progress');
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /browse/);
    });

    it('drops an invalid status (7) with a warning and keeps the update', () => {
      const { update, warnings } = readOk({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 7, title: 'Run' });
      assert.equal(update['status'], undefined);
      assert.equal(update['title'], 'Run');
      assert.equal(warnings.length, 1);
    });

    it('drops a messageId that is not a string, and a _meta that is not an object, with warnings', () => {
      const { update, value, warnings } = readOk(
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, messageId: 3, _meta: 'x' },
        { _meta: [1] },
      );
      assert.equal(update['messageId'], undefined);
      assert.equal(update['_meta'], undefined);
      assert.equal(value['_meta'], undefined);
      assert.deepEqual(update['content'], { type: 'text', text: 'hi' });
      assert.equal(warnings.length, 3);
    });

    it('skips invalid items in content with a warning and keeps the rest in order', () => {
      const { update, warnings } = readOk({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        content: [
          { type: 'content', content: { type: 'text', text: 'one' } },
          { type: 'bogus' },
          { type: 'diff', path: '/w/a.ts' },
          { type: 'diff', path: '/w/new.ts', oldText: null, newText: 'x' },
          'junk',
          { type: 'terminal', terminalId: 'term-9' },
        ],
      });
      assertSame(update['content'], [
        { type: 'content', content: { type: 'text', text: 'one' } },
        { type: 'diff', path: '/w/new.ts', oldText: null, newText: 'x' },
        { type: 'terminal', terminalId: 'term-9' },
      ]);
      assert.equal(warnings.length, 3);
    });

    it('skips invalid locations with a warning, and drops an invalid line but keeps its location', () => {
      const { update, warnings } = readOk({
        sessionUpdate: 'tool_call',
        toolCallId: 'c',
        title: 'Edit',
        locations: [{ path: '/w/a.ts', line: 3 }, { line: 4 }, 'x', { path: '/w/b.ts', line: -1 }],
      });
      assertSame(update['locations'], [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }]);
      assert.equal(warnings.length, 3);
    });

    it('keeps unknown fields and _meta, on the fast path and on the schema path', () => {
      const meta = { terminal_output: { terminal_id: 't', data: 'hi' } };
      const chunk = readOk(
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' }, extra: [1], _meta: meta },
        { _meta: { q: 1 }, also: true },
      );
      assert.deepEqual(chunk.update['extra'], [1]);
      assert.deepEqual(chunk.update['_meta'], meta);
      assert.deepEqual(chunk.value['_meta'], { q: 1 });
      assert.equal(chunk.value['also'], true);
      const call = readOk({
        sessionUpdate: 'tool_call',
        toolCallId: 'c',
        title: 'Run',
        content: [{ type: 'terminal', terminalId: 't', _meta: { cwd: '/w' }, x: 1 }],
        future: { a: 1 },
        _meta: meta,
      });
      assert.deepEqual(call.update['future'], { a: 1 });
      assert.deepEqual(call.update['_meta'], meta);
      assertSame(call.update['content'], [{ type: 'terminal', terminalId: 't', _meta: { cwd: '/w' }, x: 1 }]);
      assert.deepEqual(call.warnings, []);
    });

    it('accepts null for optional fields without a warning', () => {
      const upd = readOk({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        title: null,
        kind: null,
        status: null,
        content: null,
        locations: null,
        rawInput: null,
        _meta: null,
      });
      assert.deepEqual(upd.warnings, []);
      assert.equal(upd.update['status'], null);
      assert.equal(upd.update['content'], null);
      const call = readOk({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'T', kind: null, status: null, content: null, rawOutput: null });
      assert.deepEqual(call.warnings, []);
      assert.equal(call.update['kind'] ?? undefined, undefined);
      const chunk = readOk({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 't' }, messageId: null });
      assert.deepEqual(chunk.warnings, []);
    });

    it('still rejects an update whose required parts are wrong', () => {
      for (const update of [
        { sessionUpdate: 'agent_message_chunk' },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text' } },
        { sessionUpdate: 'tool_call', toolCallId: 'c' },
        { sessionUpdate: 'tool_call_update', toolCallId: 0 },
        { sessionUpdate: 'usage_update', used: -1, size: 10 },
      ]) {
        const r = read(update);
        assert.equal(!r.ok && r.skipped, 'invalid', JSON.stringify(update));
      }
    });
  });
});

describe('request ids', () => {
  it('RequestId accepts 0, other integers, strings and null, and nothing else', () => {
    for (const id of [0, 1, 2 ** 31, 'f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', '', null]) {
      const r = parseTolerant(S.RequestId, id);
      assert.ok(r.ok, JSON.stringify(id));
      assert.equal(r.value, id);
    }
    for (const id of [1.5, true, {}, [], undefined]) assert.equal(parseTolerant(S.RequestId, id).ok, false, JSON.stringify(id));
  });

  it('$/cancel_request keeps request id 0 and string ids', () => {
    for (const requestId of [0, 'abc']) {
      const r = parseTolerant(S.CancelRequestNotification, { requestId });
      assert.ok(r.ok);
      assert.equal(r.value.requestId, requestId);
    }
  });
});
