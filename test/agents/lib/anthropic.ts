// A fake Anthropic Messages API on 127.0.0.1 that plays a script, for claude-agent-acp's Claude Code: each prompt
// names a scenario (`scenario:<name>`), whose tool calls the model makes one per request, each after the result of
// the one before; then it answers `DONE <name>:` with what each call returned, so a test sees what reached the model.
// Streams as the real API does (SSE: message_start, content blocks with text or input_json deltas, message_delta with
// the stop reason, message_stop). The other requests Claude Code makes (a session title, the auto mode's
// classifier, prompt suggestions) get short answers. Only loopback; a request must carry the test's key.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { FakeModelServer } from './modelServer';

export interface ToolStep {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

type Json = Record<string, unknown>;
type Block = { type?: string; text?: string; content?: unknown; is_error?: boolean };

/** What each tool call returned, as the model saw it: `ok` or `error`, then its text, bounded. */
function resultText(block: Block): string {
  const content = Array.isArray(block.content)
    ? (block.content as Block[]).map((b) => (typeof b.text === 'string' ? b.text : JSON.stringify(b))).join(' ')
    : typeof block.content === 'string'
      ? block.content
      : '';
  return `${block.is_error ? 'error' : 'ok'} ${content.replace(/\s+/g, ' ').slice(0, 400)}`;
}

/**
 * The environment Claude Code needs to reach the fake at `url` and nothing else: its own key, a home of its own, and
 * none of its own services (without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC it calls them beside the base URL). A
 * machine that says it is a sandbox (IS_SANDBOX) makes the adapter offer bypassPermissions even as root, which Claude
 * Code then refuses to start with: it is cleared, so the test runs as a user's machine does.
 */
export function claudeCodeEnv(url: string, key: string, home: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: key,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false',
    // An overloaded service fails the turn at once (the scenario `overloaded`), without Claude Code's own retries.
    CLAUDE_CODE_MAX_RETRIES: '0',
    IS_SANDBOX: '',
  };
}

export class FakeAnthropic extends FakeModelServer {
  constructor(private readonly scenarios: Readonly<Record<string, readonly ToolStep[]>>) {
    super('sk-ant-test-');
  }

  protected handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    if (req.headers['x-api-key'] !== this.key && req.headers['authorization'] !== `Bearer ${this.key}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"authentication_error"}}');
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') {
      if (path === '/v1/messages/count_tokens') res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error"}}');
      return;
    }
    const body = JSON.parse(text) as Json;
    const model = typeof body['model'] === 'string' ? body['model'] : 'claude-test';
    // The auto mode's classifier, not streamed: allow.
    if (body['stream'] !== true) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `msg_${++this.ids}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text: '<block>no' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 2 },
        }),
      );
      return;
    }
    const reply = this.reply(body);
    // The service is overloaded (HTTP 529), as Anthropic's API says it.
    if ('overloaded' in reply) {
      res.writeHead(529, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
      return;
    }
    this.stream(res, model, reply);
  }

  /** What the model says to one streamed request: a text, or one tool call. */
  private reply(body: Json): { text: string } | { tool: ToolStep } | { overloaded: true } {
    // The session's title: a JSON schema for the answer (every main request has an output_config too, for effort).
    const output = body['output_config'] as Json | undefined;
    if (output?.['format']) return { text: '{"title":"Agents test"}' };
    const messages = (Array.isArray(body['messages']) ? body['messages'] : []) as { role?: string; content?: unknown }[];
    const blocks = (m: { content?: unknown }): Block[] =>
      Array.isArray(m.content) ? (m.content as Block[]) : [{ type: 'text', text: String(m.content) }];
    // The prompt this turn answers: the last user message that names a scenario.
    let at = -1;
    let scenario = '';
    for (let i = messages.length - 1; i >= 0 && at < 0; i--) {
      const message = messages[i]!;
      if (message.role !== 'user') continue;
      for (const block of blocks(message)) {
        if (block.type !== 'text' || typeof block.text !== 'string') continue;
        if (block.text.includes('[SUGGESTION MODE')) return { text: '' };
        const named = /scenario:([\w-]+)/.exec(block.text);
        if (named) {
          at = i;
          scenario = named[1]!;
        }
      }
    }
    if (scenario === 'overloaded') return { overloaded: true };
    const steps = this.scenarios[scenario];
    if (!steps) return { text: `No such scenario: "${scenario}". Name one of: ${Object.keys(this.scenarios).join(', ')}.` };
    const results = messages
      .slice(at + 1)
      .flatMap((m) => (m.role === 'user' ? blocks(m) : []))
      .filter((b) => b.type === 'tool_result');
    const next = steps[results.length];
    if (next) return { tool: next };
    return { text: `DONE ${scenario}: ${results.map((r, i) => `[${steps[i]?.name}] ${resultText(r)}`).join(' | ')}` };
  }

  private stream(res: ServerResponse, model: string, reply: { text: string } | { tool: ToolStep }): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', {
      message: { id: `msg_${++this.ids}`, type: 'message', role: 'assistant', model, content: [], usage: { input_tokens: 10, output_tokens: 1 } },
    });
    if ('tool' in reply) {
      send('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: `toolu_${String(++this.ids).padStart(8, '0')}`, name: reply.tool.name, input: {} },
      });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: 'tool' in reply ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', {});
    res.end();
  }
}
