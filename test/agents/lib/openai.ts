// A fake OpenAI Responses API on 127.0.0.1 that plays a script, for codex-acp's Codex: as the Anthropic one
// (anthropic.ts), each prompt names a scenario (`scenario:<name>`) whose tool calls the model makes one per request,
// then it answers `DONE <name>:` with what each call returned. Streams as the real API does (SSE:
// response.created, response.output_item.done per item, response.completed). Codex's other requests get what they
// need: a session title (a JSON schema with `title`) and its auto-review ("guardian", which is allowed). Only
// loopback; a request must carry the test's key.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeModelServer } from './modelServer';

/** One call of the model: a patch (Codex's apply_patch), a command (exec_command), or an MCP tool in its namespace. */
export type CodexStep =
  | { readonly kind: 'patch'; readonly patch: string }
  | { readonly kind: 'exec'; readonly args: Record<string, unknown> }
  | { readonly kind: 'mcp'; readonly namespace: string; readonly name: string; readonly args: Record<string, unknown> };

type Json = Record<string, unknown>;
type Item = { type?: string; role?: string; content?: unknown; output?: unknown };

const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output']);

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((part) => (part && typeof part === 'object' ? String((part as Json)['text'] ?? '') : '')).join(' ');
  return '';
}

/** What `reply` answers the scenario `disconnect` with: no item, a stream cut short. */
const DISCONNECT: Json = {};

export class FakeOpenAI extends FakeModelServer {
  constructor(private readonly scenarios: Readonly<Record<string, readonly CodexStep[]>>) {
    super('sk-test-');
  }

  protected handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    if (req.headers['authorization'] !== `Bearer ${this.key}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key","type":"invalid_request_error"}}');
      return;
    }
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/responses') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(text) as Json;
    const item = this.reply(body);
    // The stream the scenario `disconnect` gets ends before the response is complete, every time.
    if (item === DISCONNECT) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { id: `resp_${++this.ids}` } })}\n\n`);
      return;
    }
    this.stream(res, item);
  }

  /** The output item the model answers one request with. */
  private reply(body: Json): Json {
    const schema = ((body['text'] as Json | undefined)?.['format'] as Json | undefined)?.['schema'] as Json | undefined;
    const properties = (schema?.['properties'] ?? {}) as Json;
    if ('outcome' in properties) {
      return this.message('{"outcome":"allow","risk_level":"low","user_authorization":"high","rationale":"the test allows it"}');
    }
    if ('title' in properties) return this.message('{"title":"Agents test"}');
    const input = (Array.isArray(body['input']) ? body['input'] : []) as Item[];
    let at = -1;
    let scenario = '';
    for (let i = input.length - 1; i >= 0 && at < 0; i--) {
      const item = input[i]!;
      if (item.role !== 'user') continue;
      const named = /scenario:([\w-]+)/.exec(text(item.content));
      if (named) {
        at = i;
        scenario = named[1]!;
      }
    }
    if (scenario === 'disconnect') return DISCONNECT;
    const steps = this.scenarios[scenario];
    if (!steps) return this.message(`No such scenario: "${scenario}". Name one of: ${Object.keys(this.scenarios).join(', ')}.`);
    const outputs = input.slice(at + 1).filter((item) => OUTPUTS.has(item.type ?? ''));
    const next = steps[outputs.length];
    if (!next) {
      const results = outputs.map((o, i) => `[${steps[i]?.kind}] ${text(o.output).replace(/\s+/g, ' ').slice(0, 400)}`);
      return this.message(`DONE ${scenario}: ${results.join(' | ')}`);
    }
    const call_id = `call_${++this.ids}`;
    switch (next.kind) {
      case 'patch':
        return { type: 'custom_tool_call', id: `ctc_${this.ids}`, call_id, name: 'apply_patch', input: next.patch };
      case 'exec':
        return { type: 'function_call', id: `fc_${this.ids}`, call_id, name: 'exec_command', arguments: JSON.stringify(next.args) };
      case 'mcp':
        return {
          type: 'function_call',
          id: `fc_${this.ids}`,
          call_id,
          namespace: next.namespace,
          name: next.name,
          arguments: JSON.stringify(next.args),
        };
    }
  }

  private message(words: string): Json {
    return { type: 'message', role: 'assistant', id: `msg_${++this.ids}`, content: [{ type: 'output_text', text: words }] };
  }

  private stream(res: ServerResponse, item: Json): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const id = `resp_${++this.ids}`;
    send('response.created', { response: { id } });
    send('response.output_item.done', { output_index: 0, item });
    send('response.completed', {
      response: {
        id,
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      },
    });
    res.end();
  }
}
