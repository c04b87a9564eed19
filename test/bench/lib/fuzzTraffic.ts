// The fuzz agent's traffic: a deterministic stream (seeded) of messages for the client, mixing valid traffic with
// every kind of hostile or broken input the protocol core must survive. Each message is one "unit": the bytes of
// one or more lines, always ending in a newline, and a category for the report. The ledger (fuzzWire.ts) decides
// from those bytes what the client owes; this file only decides what to send.
import { prng, updateLines } from './updates';

export interface Unit {
  readonly category: string;
  readonly bytes: Buffer;
  /** Write the bytes in two writes split here (inside a multi-byte character), so a read may end mid-character. */
  readonly splitAt?: number;
  /**
   * A valid terminal/create: once its answer names the terminal, `terminalCreated` queues the follow-ups (output,
   * wait_for_exit when this says so, release).
   */
  readonly createsTerminal?: { readonly waitForExit: boolean };
}

/** Paths the bench's in-memory host serves; anything else is "not found". */
export const FUZZ_FILES: Readonly<Record<string, string>> = {
  '/ws/a.txt': 'alpha\nbeta\ngamma\n',
  '/ws/b.txt': 'naïve 🙂 — unicode\n',
  '/ws/final.txt': 'the final read\n',
};

const CLIENT_METHODS = [
  'session/request_permission',
  'fs/read_text_file',
  'fs/write_text_file',
  'terminal/create',
  'terminal/output',
  'terminal/release',
  'terminal/wait_for_exit',
  'terminal/kill',
  'elicitation/create',
] as const;

const UNKNOWN_METHODS = [
  'foo/bar',
  '_vendor/do_thing',
  'session/prompt',
  'initialize',
  'session/new',
  'toString',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  '',
  'fs/read_text_file ',
  'FS/READ_TEXT_FILE',
  'fs/',
  '/',
  'terminal/create/x',
];
const INTERNAL_METHODS = ['$/acp/coalesced', '$/acp/anything', '$/cancelRequest', '$/setTrace', '$/logTrace', '$/progress', '$/cancel_request'];

/** How often each category comes (the rest is valid session/update traffic). Huge strings come at fixed places. */
const WEIGHTS: readonly (readonly [string, number])[] = [
  ['valid fs/read', 0.05],
  ['valid fs/write', 0.03],
  ['valid permission', 0.04],
  ['valid terminal', 0.003],
  ['valid cancel', 0.01],
  ['valid crlf/utf-8 split', 0.03],
  ['mutated bytes', 0.15],
  ['hostile id', 0.08],
  ['deep nesting', 0.005],
  ['proto keys', 0.03],
  ['unknown method', 0.03],
  ['internal method', 0.02],
  ['invalid params', 0.08],
  ['stray response', 0.03],
  ['unknown session', 0.05],
  ['junk', 0.04],
];

const HUGE_UNITS = 4;

export class FuzzTraffic {
  private readonly rand: () => number;
  private readonly updates: string[];
  private readonly followUps: Unit[] = [];
  private followUpIds = 0;
  private n = 0;
  private sentUnits = 0;
  private lastId: number | string = 0;
  private readonly firstOnce = new Set<string>();

  constructor(
    private readonly count: number,
    private readonly sessionId: string,
    seed: number,
  ) {
    this.rand = prng(seed);
    this.updates = updateLines(2000, sessionId, seed);
  }

  /**
   * The next unit, or undefined once `count` units of the seeded stream have been produced. Terminal follow-ups come
   * first when there are any; they come on top of `count` and draw nothing from the seeded stream, so the stream is
   * the same whenever the client's answers arrive.
   */
  next(): Unit | undefined {
    if (this.sentUnits >= this.count) return undefined;
    const follow = this.followUps.shift();
    if (follow) return follow;
    const index = this.sentUnits++;
    // Huge strings: a few, spread over the run.
    const every = Math.floor(this.count / (HUGE_UNITS + 1));
    if (every > 0 && index > 0 && index % every === 0 && index / every <= HUGE_UNITS) return this.huge(index / every);
    let r = this.rand();
    for (const [category, weight] of WEIGHTS) {
      if (r < weight) return this.unit(category);
      r -= weight;
    }
    return this.unit('valid update');
  }

  /** The client created a terminal for us: read its output, maybe wait for it, then release it. */
  terminalCreated(terminalId: string, waitForExit: boolean): void {
    const t = { sessionId: this.sessionId, terminalId };
    const id = () => JSON.stringify(`term-follow-up-${++this.followUpIds}`);
    this.followUps.push(this.line('valid terminal', this.request('terminal/output', t, id())));
    if (waitForExit) this.followUps.push(this.line('valid terminal', this.request('terminal/wait_for_exit', t, id())));
    this.followUps.push(this.line('valid terminal', this.request('terminal/release', t, id())));
  }

  // ---- helpers -------------------------------------------------------------------------------------------------

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)] as T;
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  /** Once per run: true the first time it is asked about `what`. */
  private once(what: string): boolean {
    if (this.firstOnce.has(what)) return false;
    this.firstOnce.add(what);
    return true;
  }

  /** A fresh id, as raw JSON text: numbers far above the client's own ids, or strings. */
  private freshId(): string {
    const n = ++this.n;
    const id = this.rand() < 0.5 ? 1_000_000 + n : `r-${n}`;
    this.lastId = id;
    return JSON.stringify(id);
  }

  private line(category: string, text: string, extra: Partial<Unit> = {}): Unit {
    return { category, bytes: Buffer.from(`${text}\n`, 'utf8'), ...extra };
  }

  /** A request line with a fresh id (or the raw id given). */
  private request(method: string, params: unknown, rawId = this.freshId()): string {
    return `{"jsonrpc":"2.0","id":${rawId},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
  }

  private notification(method: string, params: unknown): string {
    return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
  }

  private readParams(): Record<string, unknown> {
    const p: Record<string, unknown> = { sessionId: this.sessionId, path: this.pick(['/ws/a.txt', '/ws/b.txt', '/ws/missing.txt']) };
    if (this.rand() < 0.3) Object.assign(p, { line: this.int(1, 3), limit: this.int(1, 2) });
    return p;
  }

  private permissionParams(): Record<string, unknown> {
    return {
      sessionId: this.sessionId,
      toolCall: { toolCallId: `perm_${this.n}`, title: 'Edit config.json', kind: 'edit', status: 'pending' },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    };
  }

  /** A valid line that carries no command to run: what byte mutations start from. */
  private validLine(): string {
    const r = this.rand();
    if (r < 0.5) return this.pick(this.updates);
    if (r < 0.7) return this.request('fs/read_text_file', this.readParams());
    if (r < 0.8)
      return this.request('fs/write_text_file', { sessionId: this.sessionId, path: `/ws/out${this.n % 8}.txt`, content: 'naïve 🙂 text\n' });
    if (r < 0.9) return this.request('session/request_permission', this.permissionParams());
    return this.notification('$/cancel_request', { requestId: this.lastId });
  }

  private deep(depth: number, open: string, close: string, inner = '1'): string {
    return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
  }

  // ---- the categories ------------------------------------------------------------------------------------------

  private unit(category: string): Unit {
    const s = this.sessionId;
    switch (category) {
      case 'valid update':
        return this.line(category, this.pick(this.updates));
      case 'valid fs/read':
        return this.line(category, this.request('fs/read_text_file', this.readParams()));
      case 'valid fs/write':
        return this.line(
          category,
          this.request('fs/write_text_file', { sessionId: s, path: `/ws/out${this.n % 8}.txt`, content: `line ${this.n}\n` }),
        );
      case 'valid permission':
        return this.line(category, this.request('session/request_permission', this.permissionParams()));
      case 'valid terminal': {
        // Only ever `true`, and never mutated: a fuzzer must not run arbitrary commands.
        const params: Record<string, unknown> = { sessionId: s, command: 'true' };
        if (this.rand() < 0.5) params['args'] = [];
        if (this.rand() < 0.2) params['outputByteLimit'] = 1e15;
        return this.line(category, this.request('terminal/create', params), { createsTerminal: { waitForExit: this.rand() < 0.3 } });
      }
      case 'valid cancel':
        return this.line(category, this.notification('$/cancel_request', { requestId: this.lastId }));
      case 'valid crlf/utf-8 split':
        return this.splitOrCrlf(category);
      case 'mutated bytes':
        return this.mutated(category);
      case 'hostile id':
        return this.hostileId(category);
      case 'deep nesting':
        return this.deepNesting(category);
      case 'proto keys':
        return this.protoKeys(category);
      case 'unknown method': {
        const method = this.rand() < 0.05 ? 'x'.repeat(10_000) : this.pick(UNKNOWN_METHODS);
        return this.line(category, this.rand() < 0.7 ? this.request(method, { sessionId: s }) : this.notification(method, { sessionId: s }));
      }
      case 'internal method':
        return this.internal(category);
      case 'invalid params':
        return this.invalidParams(category);
      case 'stray response':
        return this.strayResponse(category);
      case 'unknown session': {
        const ghost = `ghost-${++this.n}`;
        if (this.rand() < 0.8)
          return this.line(
            category,
            this.notification('session/update', {
              sessionId: ghost,
              update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'boo' } },
            }),
          );
        return this.line(category, this.request('fs/read_text_file', { sessionId: ghost, path: '/ws/a.txt' }));
      }
      case 'junk':
        return this.junk(category);
      default:
        throw new Error(`unknown category ${category}`);
    }
  }

  private splitOrCrlf(category: string): Unit {
    if (this.rand() < 0.5)
      return {
        category,
        bytes: Buffer.from(`${this.rand() < 0.5 ? this.pick(this.updates) : this.request('fs/read_text_file', this.readParams())}\r\n`),
      };
    // A line with multi-byte characters, written in two parts split inside one of them.
    const text = this.request('fs/write_text_file', { sessionId: this.sessionId, path: '/ws/utf8.txt', content: 'naïve 🙂 — done' });
    const bytes = Buffer.from(`${text}\n`);
    const emoji = bytes.indexOf(Buffer.from('🙂'));
    return { category, bytes, splitAt: emoji + this.int(1, 3) };
  }

  private mutated(category: string): Unit {
    let bytes = Buffer.from(this.validLine(), 'utf8');
    const ops = this.int(1, 3);
    for (let k = 0; k < ops && bytes.length > 0; k++) {
      const at = this.int(0, bytes.length - 1);
      switch (this.int(0, 5)) {
        case 0: // flip one byte
          bytes[at] = this.int(0, 255);
          break;
        case 1: // flip one bit
          bytes[at] = (bytes[at] as number) ^ (1 << this.int(0, 7));
          break;
        case 2: // insert a few random bytes
          bytes = Buffer.concat([
            bytes.subarray(0, at),
            Buffer.from(Array.from({ length: this.int(1, 4) }, () => this.int(0, 255))),
            bytes.subarray(at),
          ]);
          break;
        case 3: // delete a few bytes
          bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + this.int(1, 3))]);
          break;
        case 4: // truncate
          bytes = bytes.subarray(0, at);
          break;
        default: {
          // end the line inside a multi-byte character, and carry on with the rest on a line of its own
          let multi = -1;
          for (let i = at; i < bytes.length; i++) {
            if ((bytes[i] as number) >= 0xc0) {
              multi = i;
              break;
            }
          }
          if (multi !== -1) bytes = Buffer.concat([bytes.subarray(0, multi + 1), Buffer.from('\n'), bytes.subarray(multi + 1)]);
          else bytes = bytes.subarray(0, at);
        }
      }
    }
    return { category, bytes: Buffer.concat([bytes, Buffer.from('\n')]) };
  }

  private hostileId(category: string): Unit {
    const n = ++this.n;
    const read = (rawId: string) => this.request('fs/read_text_file', { sessionId: this.sessionId, path: '/ws/a.txt' }, rawId);
    const variant = this.int(0, 13);
    switch (variant) {
      case 0:
        return this.line(category, read(this.once('2^60') ? (2n ** 60n).toString() : (2n ** 60n + BigInt(n)).toString()));
      case 1:
        return this.line(category, read((2n ** 64n + BigInt(n)).toString()));
      case 2:
        return this.line(category, read(String(-(1_000_000 + n))));
      case 3:
        return this.line(category, read(`${1_000_000 + n}.5`));
      case 4: {
        // The same digits as a number and as a string, both in flight at once.
        const k = this.once('8 and "8"') ? 8 : 2_000_000 + n;
        return { category, bytes: Buffer.from(`${read(String(k))}\n${read(JSON.stringify(String(k)))}\n`) };
      }
      case 5:
        return this.line(category, read(JSON.stringify(`${'x'.repeat(this.int(10_000, 100_000))}-${n}`)));
      case 6:
        return this.line(category, read(JSON.stringify(`ü🙂"\\\n\u2028\u0000-${n}`)));
      case 7:
        return this.line(category, read(this.once('empty') ? '""' : JSON.stringify(` ${n}`)));
      case 8:
        return this.line(category, read(this.once('zero') ? '0' : String(Number.MAX_SAFE_INTEGER - n)));
      case 9:
        return this.line(category, read('null'));
      case 10:
        return this.line(category, read(this.pick(['{}', `{"a":${n}}`, `[${n}]`, '[]', 'true', 'false'])));
      case 11:
        return this.line(category, read(`{"__proto__":{"fuzzPolluted":${n}}}`));
      case 12: {
        // Two ids in one object: JSON.parse keeps the last one, and so must the answer.
        const text = read(String(3_000_000 + n));
        return this.line(category, text.replace('{"jsonrpc":"2.0",', `{"jsonrpc":"2.0","id":"first-${n}",`));
      }
      default: {
        // The id last, after the params.
        const rawId = this.freshId();
        return this.line(
          category,
          `{"jsonrpc":"2.0","method":"fs/read_text_file","params":{"sessionId":"${this.sessionId}","path":"/ws/b.txt"},"id":${rawId}}`,
        );
      }
    }
  }

  private deepNesting(category: string): Unit {
    const depth = this.int(5_000, 20_000);
    const arr = this.deep(depth, '[', ']');
    const obj = this.deep(depth, '{"a":', '}');
    const s = this.sessionId;
    switch (this.int(0, 6)) {
      case 0:
        return this.line(category, `{"jsonrpc":"2.0","id":${arr},"method":"fs/read_text_file","params":{"sessionId":"${s}","path":"/ws/a.txt"}}`);
      case 1:
        return this.line(category, `{"jsonrpc":"2.0","id":${obj},"method":"fs/read_text_file","params":{"sessionId":"${s}","path":"/ws/a.txt"}}`);
      case 2:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${this.freshId()},"method":"fs/read_text_file","params":{"sessionId":"${s}","path":"/ws/a.txt","_meta":{"x":${obj}}}}`,
        );
      case 3:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${this.freshId()},"method":"fs/read_text_file","params":{"sessionId":"${s}","path":"/ws/a.txt","line":${arr}}}`,
        );
      case 4:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${this.freshId()},"method":"session/request_permission","params":{"sessionId":"${s}","toolCall":{"toolCallId":"deep_${this.n}","rawInput":${arr},"_meta":${obj}},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`,
        );
      case 5:
        return this.line(
          category,
          `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${s}","update":{"sessionUpdate":"tool_call","toolCallId":"deep_${++this.n}","title":"deep","rawInput":${obj},"_meta":${arr}}}}`,
        );
      default:
        return this.line(category, arr);
    }
  }

  private protoKeys(category: string): Unit {
    const s = this.sessionId;
    const evil = '"__proto__":{"fuzzPolluted":true},"constructor":{"prototype":{"fuzzPolluted":true}},"prototype":{"fuzzPolluted":true}';
    const id = () => this.freshId();
    switch (this.int(0, 7)) {
      case 0:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${id()},"method":"fs/read_text_file","params":{${evil},"sessionId":"${s}","path":"/ws/a.txt"}}`,
        );
      case 1:
        return this.line(
          category,
          `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${s}","update":{${evil},"sessionUpdate":"agent_message_chunk","content":{${evil},"type":"text","text":"x"}}}}`,
        );
      case 2:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${id()},"method":"session/request_permission","params":{"sessionId":"${s}","toolCall":{"toolCallId":"__proto__",${evil}},"options":[{"optionId":"constructor","name":"Allow","kind":"allow_once",${evil}}]}}`,
        );
      case 3:
        return this.line(
          category,
          this.request('fs/write_text_file', { sessionId: s, path: this.pick(['__proto__', 'constructor', 'prototype']), content: 'x' }),
        );
      case 4:
        return this.line(
          category,
          this.notification('session/update', {
            sessionId: this.pick(['__proto__', 'constructor', 'prototype', 'hasOwnProperty']),
            update: { sessionUpdate: 'plan', entries: [] },
          }),
        );
      case 5:
        return this.line(
          category,
          this.request(this.pick(['terminal/output', 'terminal/release', 'terminal/kill']), {
            sessionId: s,
            terminalId: this.pick(['__proto__', 'constructor', 'hasOwnProperty', 'toString']),
          }),
        );
      case 6:
        return this.line(
          category,
          `{"jsonrpc":"2.0","id":${id()},"method":"fs/read_text_file","params":{"sessionId":"${s}","path":"/ws/b.txt","_meta":{${evil}}},"_meta":{${evil}}}`,
        );
      default: {
        const toolCallId = this.pick(['__proto__', 'constructor', 'prototype', 'toString']);
        return this.line(
          category,
          this.notification('session/update', {
            sessionId: s,
            update: { sessionUpdate: this.pick(['tool_call', 'tool_call_update']), toolCallId, title: 'proto', status: 'in_progress' },
          }),
        );
      }
    }
  }

  private internal(category: string): Unit {
    if (this.once('coalesced flood')) {
      // One line that stands for 200,000 notifications, if the client took it for its own batching.
      return this.line(
        category,
        `{"jsonrpc":"2.0","method":"$/acp/coalesced","params":{"method":"session/update","items":[${new Array(200_000).fill('1').join(',')}]}}`,
      );
    }
    const method = this.pick(INTERNAL_METHODS);
    const params = this.pick<unknown>([
      { method: 'session/update', items: null },
      { method: 'fs/read_text_file', items: [{ sessionId: this.sessionId, path: '/ws/a.txt' }] },
      { id: this.lastId },
      { id: { a: 1 } },
      { requestId: null },
      { requestId: [1] },
      { value: 'verbose' },
      { token: 'x', value: { kind: 'begin' } },
      null,
      'str',
    ]);
    const text =
      this.rand() < 0.5
        ? this.request(method, params)
        : `{"jsonrpc":"2.0","method":${JSON.stringify(method)}${params === null ? '' : `,"params":${JSON.stringify(params)}`}}`;
    return this.line(category, text);
  }

  private invalidParams(category: string): Unit {
    const method = this.pick(CLIENT_METHODS);
    const s = this.sessionId;
    const common: unknown[] = [undefined, null, [], 'x', 42, true, {}, { sessionId: 42 }, { sessionId: s }, { sessionId: null }];
    const specific: Record<string, unknown[]> = {
      'fs/read_text_file': [
        { sessionId: s, path: 5 },
        { sessionId: s, path: '/ws/a.txt', line: -1 },
        { sessionId: s, path: '/ws/a.txt', line: 1.5 },
        { sessionId: s, path: '/ws/a.txt', limit: 'x' },
        { sessionId: s, path: '/ws/a.txt', line: 1e300 },
      ],
      'fs/write_text_file': [
        { sessionId: s, path: '/ws/x', content: null },
        { sessionId: s, path: '/ws/x', content: 5 },
        { sessionId: s, path: ['/ws/x'], content: '' },
      ],
      'session/request_permission': [
        { sessionId: s, toolCall: null, options: [] },
        { sessionId: s, toolCall: {}, options: 'x' },
        { sessionId: s, toolCall: { toolCallId: 1 }, options: [{ optionId: 1 }] },
      ],
      'terminal/create': [
        { sessionId: s, command: 5 },
        { sessionId: s, command: '' },
        { sessionId: s, command: 'true', args: 'x' },
        { sessionId: s, command: 'true', env: [{ name: 1 }] },
        { sessionId: s, command: 'true', outputByteLimit: 'x' },
      ],
      'elicitation/create': [{ sessionId: s, mode: 'form', message: 1 }, { mode: 'nope' }],
    };
    const terminalCases = [
      { sessionId: s, terminalId: 5 },
      { sessionId: s, terminalId: 'term-999999' },
      { sessionId: s, terminalId: null },
    ];
    const cases = [...common, ...(specific[method] ?? terminalCases)];
    const params = this.pick(cases);
    const rawId = this.freshId();
    const paramsText = params === undefined ? '' : `,"params":${JSON.stringify(params)}`;
    return this.line(category, `{"jsonrpc":"2.0","id":${rawId},"method":"${method}"${paramsText}}`);
  }

  private strayResponse(category: string): Unit {
    const n = ++this.n;
    const id = this.pick([String(3_000_000 + n), JSON.stringify(`never-${n}`), 'null', (2n ** 60n + BigInt(n)).toString()]);
    const body = this.pick([
      '"result":{}',
      '"result":null',
      '"error":{"code":1,"message":"x"}',
      '"error":"boom"',
      '"result":{},"error":{"code":-32603,"message":"both"}',
      '"result":[[[[1]]]]',
    ]);
    return this.line(category, `{"jsonrpc":"2.0","id":${id},${body}}`);
  }

  private junk(category: string): Unit {
    const n = this.int(0, 12);
    const texts = [
      'hello',
      '{',
      '}',
      '[]',
      '[1,2]',
      '"str"',
      '42',
      'null',
      '{"jsonrpc":"2.0"}',
      '   ',
      '\ufeff{"jsonrpc":"2.0","method":"session/update"}',
      '\u0000\u0001',
    ];
    if (n < texts.length) return this.line(category, texts[n] as string);
    const bytes = Buffer.from(Array.from({ length: this.int(1, 200) }, () => this.int(0, 255)).filter((b) => b !== 10));
    return { category, bytes: Buffer.concat([bytes, Buffer.from('\n')]) };
  }

  private huge(which: number): Unit {
    const s = this.sessionId;
    const category = 'huge strings';
    switch (which) {
      case 1:
        return this.line(
          category,
          this.notification('session/update', {
            sessionId: s,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'naïve 🙂 '.repeat(300_000) } },
          }),
        );
      case 2:
        return this.line(category, this.request('fs/write_text_file', { sessionId: s, path: '/ws/huge.txt', content: 'y'.repeat(5 * 1024 * 1024) }));
      case 3:
        return this.line(category, this.request('fs/read_text_file', { sessionId: s, path: `/ws/${'a/'.repeat(512 * 1024)}x` }));
      default:
        return this.line(category, 'z'.repeat(2 * 1024 * 1024));
    }
  }
}
