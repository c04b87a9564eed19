// The NDJSON transport: framing, tolerance of what agents write, cancellation spelling, coalescing, and the writer.
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { CancellationTokenSource, createMessageConnection, ResponseError, type Message } from 'vscode-jsonrpc/node';
import type { Logger } from '../../../src/acp/log';
import { NdjsonMessageWriter } from '../../../src/acp/ndjsonWriter';
import { COALESCED_METHOD, NdjsonMessageReader, type NdjsonReaderOptions } from '../../../src/acp/transport';

type Json = Record<string, unknown>;

interface Recorded {
  readonly level: keyof Logger;
  readonly message: string;
}

function recordingLogger(): { log: Logger; lines: Recorded[] } {
  const lines: Recorded[] = [];
  const at = (level: keyof Logger) => (message: string) => lines.push({ level, message });
  return { log: { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

/** A reader listening on a fresh PassThrough; `got` collects what it delivers. */
function makeReader(options: Omit<NdjsonReaderOptions, 'log'> = {}) {
  const stream = new PassThrough();
  const { log, lines } = recordingLogger();
  const reader = new NdjsonMessageReader(stream, { log, ...options });
  const got: Json[] = [];
  reader.listen((message) => got.push(message as unknown as Json));
  const closed = new Promise<void>((resolve) => reader.onClose(() => resolve()));
  /** Writes the chunks to the stream, ends it, and resolves once the reader has seen the end. */
  const feed = async (...chunks: (string | Buffer)[]) => {
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
    await bounded(closed, 'the end of the stream');
  };
  const push = (...chunks: (string | Buffer)[]) => {
    for (const chunk of chunks) reader.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  };
  return { reader, stream, got, logs: lines, feed, push };
}

function bounded<T>(promise: Promise<T>, what: string, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const request = (id: number | string, method = 'fs/read_text_file', params: unknown = { sessionId: 's', path: '/a' }) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const notification = (method: string, params: unknown) => ({ jsonrpc: '2.0', method, params });
const update = (text: string) =>
  notification('session/update', { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** Splits a buffer into chunks of `size` bytes. */
function chunks(buffer: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) out.push(buffer.subarray(i, i + size));
  return out;
}

describe('NdjsonMessageReader', () => {
  it('delivers several messages from one chunk, in order', () => {
    const r = makeReader();
    const messages = [request(0), request(1, 'terminal/output'), notification('elicitation/complete', { elicitationId: 'e' })];
    r.push(messages.map(line).join(''));
    assert.deepEqual(r.got, messages);
    assert.deepEqual(r.logs, []);
  });

  it('delivers one message that arrives over many chunks once, when its line ends', () => {
    const r = makeReader();
    const message = request(7, 'session/request_permission', { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] });
    const bytes = Buffer.from(line(message));
    for (const chunk of chunks(bytes.subarray(0, -1), 3)) r.push(chunk);
    assert.deepEqual(r.got, [], 'nothing before the newline');
    r.push('\n');
    assert.deepEqual(r.got, [message]);
  });

  describe('a multi-byte UTF-8 character split across chunks', () => {
    const text = 'café € 😀 ok';
    const message = update(text);
    const bytes = Buffer.from(line(message));

    it('decodes whole, split at every byte boundary (push)', () => {
      for (let at = 1; at < bytes.length; at++) {
        const r = makeReader();
        r.push(bytes.subarray(0, at), bytes.subarray(at));
        assert.deepEqual(r.got, [message], `split at byte ${at}`);
      }
      const r = makeReader();
      r.push(...chunks(bytes, 1));
      assert.deepEqual(r.got, [message], 'one byte at a time');
    });

    it('decodes whole, split at every byte boundary (a real stream)', async () => {
      for (let at = 1; at < bytes.length; at++) {
        const r = makeReader();
        await r.feed(bytes.subarray(0, at), bytes.subarray(at));
        assert.deepEqual(r.got, [message], `split at byte ${at}`);
      }
      const r = makeReader();
      await r.feed(...chunks(bytes, 1));
      assert.deepEqual(r.got, [message], 'one byte at a time');
    });
  });

  it('accepts CRLF line endings, also when CR and LF arrive in different chunks', () => {
    const r = makeReader();
    r.push(`${JSON.stringify(request(1))}\r\n${JSON.stringify(request(2))}\r`, `\n${JSON.stringify(request(3))}\r\n`);
    assert.deepEqual(r.got, [request(1), request(2), request(3)]);
    assert.deepEqual(r.logs, []);
  });

  it('skips blank and whitespace-only lines silently', () => {
    const r = makeReader();
    r.push(`\n\n   \n\t \r\n${JSON.stringify(request(1))}\n\n`);
    assert.deepEqual(r.got, [request(1)]);
    assert.deepEqual(r.logs, []);
  });

  it('logs and skips a junk line, and the next message still arrives', () => {
    const r = makeReader();
    r.push('Loaded cached credentials.\n', line(request(1)));
    r.push('{"jsonrpc":"2.0","id":2,"method":"fs/read', '_text_file"\n', line(request(3)));
    assert.deepEqual(r.got, [request(1), request(3)]);
    assert.equal(r.logs.length, 2);
    assert.ok(
      r.logs.every((l) => l.level === 'warn' && l.message.includes('not JSON')),
      JSON.stringify(r.logs),
    );
    assert.ok(r.logs[0]?.message.includes('Loaded cached credentials.'), 'the log line shows what was skipped');
  });

  for (const [what, text] of [
    ['a JSON array (a batch)', '[{"jsonrpc":"2.0","id":1,"method":"initialize"}]'],
    ['a number', '42'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['a boolean', 'true'],
    ['an object with neither method nor id', '{"jsonrpc":"2.0","hello":"world"}'],
  ] as const) {
    it(`logs and skips ${what}, and the next message still arrives`, () => {
      const r = makeReader();
      r.push(`${text}\n`, line(request(1)));
      assert.deepEqual(r.got, [request(1)]);
      assert.equal(r.logs.length, 1, JSON.stringify(r.logs));
      assert.equal(r.logs[0]?.level, 'warn');
    });
  }

  describe('an oversized line (maxLineBytes 64)', () => {
    const big = JSON.stringify(notification('session/update', { pad: 'x'.repeat(100) }));
    const next = { jsonrpc: '2.0', id: 9, method: 'ok' };

    it('is skipped with one log line when it arrives in one chunk', () => {
      const r = makeReader({ maxLineBytes: 64 });
      r.push(`${big}\n${JSON.stringify(next)}\n`);
      assert.deepEqual(r.got, [next]);
      assert.equal(r.logs.length, 1);
      assert.match(r.logs[0]?.message ?? '', /64 bytes/);
    });

    it('is skipped with one log line whatever the chunk size, and the next message is delivered', () => {
      const bytes = Buffer.from(`${big}\n${JSON.stringify(next)}\n`);
      for (let size = 1; size <= bytes.length; size++) {
        const r = makeReader({ maxLineBytes: 64 });
        r.push(...chunks(bytes, size));
        assert.deepEqual(r.got, [next], `chunks of ${size}`);
        assert.equal(r.logs.length, 1, `chunks of ${size}: ${JSON.stringify(r.logs)}`);
      }
    });

    it('is skipped on a real stream too, also as the last line without a newline', async () => {
      const r = makeReader({ maxLineBytes: 64 });
      await r.feed(...chunks(Buffer.from(`${big}\n${JSON.stringify(next)}\n${big}`), 10));
      assert.deepEqual(r.got, [next]);
      assert.equal(r.logs.length, 2);
    });

    it('a line of exactly maxLineBytes is delivered, with LF or CRLF, however it is split', () => {
      const exact = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { p: '' } });
      const message = JSON.parse(exact.replace('"p":""', `"p":"${'y'.repeat(64 - exact.length)}"`)) as Json;
      assert.equal(Buffer.byteLength(JSON.stringify(message)), 64);
      for (const eol of ['\n', '\r\n']) {
        const bytes = Buffer.from(`${JSON.stringify(message)}${eol}`);
        for (let at = 1; at < bytes.length; at++) {
          const r = makeReader({ maxLineBytes: 64 });
          r.push(bytes.subarray(0, at), bytes.subarray(at));
          assert.deepEqual(r.got, [message], `${JSON.stringify(eol)} split at ${at}`);
          assert.deepEqual(r.logs, []);
        }
      }
    });
  });

  it('delivers a last line without a trailing newline when the stream ends', async () => {
    const r = makeReader();
    await r.feed(line(request(1)), JSON.stringify(request(2)).slice(0, 10), JSON.stringify(request(2)).slice(10));
    assert.deepEqual(r.got, [request(1), request(2)]);
  });

  it('turns ACP $/cancel_request {requestId} into vscode-jsonrpc $/cancelRequest {id} (0 and string ids too)', () => {
    const r = makeReader();
    for (const requestId of [0, 17, 'f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d']) r.push(line(notification('$/cancel_request', { requestId })));
    assert.deepEqual(r.got, [
      notification('$/cancelRequest', { id: 0 }),
      notification('$/cancelRequest', { id: 17 }),
      notification('$/cancelRequest', { id: 'f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d' }),
    ]);
  });

  describe('coalescing session/update', () => {
    const options = { coalesce: ['session/update'] };

    it('delivers consecutive updates of one chunk as ONE message, in order', () => {
      const r = makeReader(options);
      const updates = ['a', 'b', 'c', 'd'].map(update);
      r.push(updates.map(line).join(''));
      assert.deepEqual(r.got, [notification(COALESCED_METHOD, { items: updates })]);
    });

    it('delivers a single update as itself', () => {
      const r = makeReader(options);
      r.push(line(update('a')), line(update('b')));
      assert.deepEqual(r.got, [update('a'), update('b')], 'updates in different chunks are not merged');
    });

    it('splits the run at a request, a response or another notification, preserving order', () => {
      const r = makeReader(options);
      const response = { jsonrpc: '2.0', id: 4, result: { stopReason: 'end_turn' } };
      const other = notification('elicitation/complete', { elicitationId: 'e' });
      r.push([update('a'), update('b'), request(1), update('c'), response, update('d'), update('e'), other, update('f')].map(line).join(''));
      assert.deepEqual(r.got, [
        notification(COALESCED_METHOD, { items: [update('a'), update('b')] }),
        request(1),
        update('c'),
        response,
        notification(COALESCED_METHOD, { items: [update('d'), update('e')] }),
        other,
        update('f'),
      ]);
    });

    it('keeps one run across the listed methods, and with onlyCoalesced drops the unlisted ones, so a read queues one message for all its notifications', () => {
      const r = makeReader({ coalesce: ['session/update', 'elicitation/complete'], onlyCoalesced: true });
      const done = notification('elicitation/complete', { elicitationId: 'e' });
      const flood = Array.from({ length: 1000 }, (_, i) => (i % 2 ? notification('_x/unknown', { i }) : i % 3 ? update(String(i)) : done));
      r.push(flood.map(line).join(''));
      assert.equal(r.got.length, 1);
      const items = (r.got[0]!['params'] as { items: { method: string }[] }).items;
      assert.equal(items.length, 500);
      assert.deepEqual(new Set(items.map((i) => i.method)), new Set(['session/update', 'elicitation/complete']));
    });

    it('does not coalesce without the option', () => {
      const r = makeReader();
      r.push(line(update('a')) + line(update('b')));
      assert.deepEqual(r.got, [update('a'), update('b')]);
    });
  });
});

describe('NdjsonMessageWriter', () => {
  function makeWriter() {
    const stream = new PassThrough();
    const writer = new NdjsonMessageWriter(stream);
    const read = () => (stream.read() as Buffer | null)?.toString('utf8') ?? '';
    return { stream, writer, read };
  }

  it('writes one line per message even when strings contain newlines', async () => {
    const w = makeWriter();
    const messages = [
      request(0, 'fs/write_text_file', { sessionId: 's', path: '/a', content: 'line one\nline two\r\nline three\u2028' }),
      notification('session/cancel', { sessionId: 's' }),
      { jsonrpc: '2.0', id: 'x', result: { content: 'a\nb' } },
    ];
    for (const m of messages) await w.writer.write(m as Message);
    const out = w.read();
    assert.ok(out.endsWith('\n'));
    const lines = out.slice(0, -1).split('\n');
    assert.equal(lines.length, messages.length);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l) as unknown),
      messages,
    );
  });

  it('turns $/cancelRequest {id} into $/cancel_request {requestId} on the wire (0 and string ids too)', async () => {
    const w = makeWriter();
    for (const id of [0, 3, 'f3b1c2d4']) await w.writer.write(notification('$/cancelRequest', { id }) as Message);
    assert.deepEqual(
      w
        .read()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
      [0, 3, 'f3b1c2d4'].map((requestId) => notification('$/cancel_request', { requestId })),
    );
  });

  it('rejects, and does not throw synchronously, once the stream is destroyed or ended', async () => {
    for (const close of ['destroy', 'end'] as const) {
      const w = makeWriter();
      const errors: Error[] = [];
      w.writer.onError(([error]) => errors.push(error));
      w.stream[close]();
      let pending: Promise<void> | undefined;
      assert.doesNotThrow(() => {
        pending = w.writer.write(request(1) as Message);
      });
      await assert.rejects(pending as Promise<void>, /closed/);
      assert.equal(errors.length, 1, `${close}: the writer reports the error once`);
    }
  });
});

describe('NDJSON end to end with vscode-jsonrpc', () => {
  it('a cancelled request travels as $/cancel_request and cancels the handler on the other side', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const wire: Json[] = [];
    toServer.on('data', (chunk: Buffer) => {
      for (const text of chunk.toString('utf8').split('\n')) if (text) wire.push(JSON.parse(text) as Json);
    });
    const client = createMessageConnection(new NdjsonMessageReader(toClient), new NdjsonMessageWriter(toServer));
    const server = createMessageConnection(new NdjsonMessageReader(toServer), new NdjsonMessageWriter(toClient));
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    server.onRequest('slow', (_params: unknown, token) => {
      started();
      return new Promise((_, reject) => token.onCancellationRequested(() => reject(new ResponseError(-32800, 'cancelled'))));
    });
    server.listen();
    client.listen();
    try {
      const cts = new CancellationTokenSource();
      const answer = client.sendRequest('slow', {}, cts.token);
      await bounded(handlerStarted, 'the handler');
      cts.cancel();
      await assert.rejects(bounded(answer, 'the answer'), (e: unknown) => e instanceof ResponseError && e.code === -32800);
      const cancel = wire.find((m) => m['method'] === '$/cancel_request');
      const slow = wire.find((m) => m['method'] === 'slow');
      assert.ok(cancel && slow);
      assert.deepEqual(cancel['params'], { requestId: slow['id'] });
      assert.ok(!wire.some((m) => m['method'] === '$/cancelRequest'));
    } finally {
      client.dispose();
      server.dispose();
    }
  });
});

describe('tracing (acp.trace "messages")', () => {
  it('sees every received line as it arrived, junk included, and every sent line as written', async () => {
    const traced: string[] = [];
    const trace = (direction: 'received' | 'sent', text: string) => traced.push(`${direction} ${text}`);
    const r = makeReader({ trace });
    await r.feed(line(update('a')), 'junk\r\n', line(request(0)));
    assert.deepEqual(traced, [`received ${JSON.stringify(update('a'))}`, 'received junk', `received ${JSON.stringify(request(0))}`]);

    traced.length = 0;
    const stream = new PassThrough();
    const writer = new NdjsonMessageWriter(stream, { trace });
    await writer.write({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 7 } } as Message);
    assert.deepEqual(traced, ['sent {"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'], 'the wire form is traced');
  });
});
