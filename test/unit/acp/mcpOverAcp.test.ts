// MCP over ACP, the client's side: the router of one connection answers `mcp/message` requests with the editor tools'
// real MCP 2026-07-28 server (the MCP SDK's pipeline, in-process), and refuses with the binding's own codes what it
// must: a server never declared or already released, a request id still running, too many at once, an MCP revision
// the binding does not carry. Notifications go out only while their request runs.
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { AcpError } from '../../../src/acp/errors';
import { silentLogger } from '../../../src/acp/log';
import { McpBindingErrors, McpOverAcp, type McpMessageNotification, type McpMessageRequest, type McpOutcome } from '../../../src/acp/mcpOverAcp';
import { Grants } from '../../../src/editorTools/grants';
import { toolsOverAcp } from '../../../src/editorTools/overAcp';
import { tool, type EditorTool, type ToolContext } from '../../../src/editorTools/tools';
import { waitFor } from '../../lib/wait';

const held: { resolve: () => void; signal: AbortSignal }[] = [];

const TOOLS: readonly EditorTool[] = [
  tool({ name: 'echo', description: 'says it back', input: { text: z.string() }, run: async ({ text }) => ({ value: { said: text } }) }),
  tool({
    name: 'hold',
    description: 'waits until released or abandoned',
    input: {},
    run: (_args, _context, signal) =>
      new Promise((resolve) => {
        held.push({ resolve: () => resolve({ value: 'released' }), signal });
        signal.addEventListener('abort', () => resolve({ error: 'abandoned' }), { once: true });
      }),
  }),
];

const context: ToolContext = {
  folders: ['/work'],
  allowed: () => undefined,
  review: async () => 'rejected',
  askToRun: async () => ({ allowed: false, why: 'rejected' }),
};

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
let ids = 0;

function message(serverId: string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = META): McpMessageRequest {
  return { serverId, requestId: `r${++ids}`, method, params: { ...params, _meta: meta } };
}

function resultOf(outcome: McpOutcome): Record<string, unknown> {
  assert.ok('result' in outcome, `an MCP result: ${JSON.stringify(outcome)}`);
  return outcome.result as Record<string, unknown>;
}

async function refusal(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AcpError, String(error));
    return error.code;
  }
  assert.fail('the request was not refused');
}

describe('MCP over ACP', () => {
  let sent: McpMessageNotification[];
  let router: McpOverAcp;
  let grants: Grants;

  beforeEach(() => {
    sent = [];
    router = new McpOverAcp(async (n) => void sent.push(n), silentLogger);
    grants = new Grants(silentLogger);
    held.length = 0;
  });

  afterEach(() => {
    for (const h of held) h.resolve();
    router.dispose();
  });

  /** The editor tools registered as `serverId`, for one session's grant. */
  function register(serverId: string) {
    const grant = grants.grant(() => 'test session', context);
    const tools = toolsOverAcp(() => TOOLS, grants.find(grant.secret)!, silentLogger);
    const registration = router.register(serverId, tools.serve);
    return { grant, release: () => (registration.release(), tools.close()) };
  }

  it('lists and calls the editor tools with the MCP SDK’s own checks, and says a wrong argument to the agent', async () => {
    register('vscode-1');
    const listed = resultOf(await router.serve(message('vscode-1', 'tools/list'), new AbortController().signal));
    assert.deepEqual(
      (listed['tools'] as { name: string }[]).map((t) => t.name),
      ['echo', 'hold'],
    );
    const echoed = resultOf(
      await router.serve(message('vscode-1', 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), new AbortController().signal),
    );
    assert.deepEqual(echoed['content'], [{ type: 'text', text: '{"said":"hi"}' }]);
    const wrong = resultOf(
      await router.serve(message('vscode-1', 'tools/call', { name: 'echo', arguments: { text: 3 } }), new AbortController().signal),
    );
    assert.equal(wrong['isError'], true);
    assert.match(JSON.stringify(wrong['content']), /expected string/);
    const discovered = resultOf(await router.serve(message('vscode-1', 'server/discover'), new AbortController().signal));
    assert.deepEqual(discovered['supportedVersions'], ['2026-07-28']);
  });

  it('answers an MCP revision the binding does not carry, or a request without its metadata, with an inner MCP error', async () => {
    register('vscode-1');
    const old = await router.serve(
      message('vscode-1', 'tools/list', {}, { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }),
      new AbortController().signal,
    );
    assert.deepEqual(old, {
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-06-18' } },
    });
    const bare = await router.serve({ serverId: 'vscode-1', requestId: 'bare', method: 'tools/list' }, new AbortController().signal);
    assert.ok('error' in bare && bare.error.code === -32602, JSON.stringify(bare));
  });

  it('refuses a server never declared, a request id still running, and more requests at once than its bound', async () => {
    const waiting: (() => void)[] = [];
    router.register('slow', () => new Promise((resolve) => waiting.push(() => resolve({ result: 'done' }))));
    assert.equal(await refusal(router.serve(message('elsewhere', 'tools/list'), new AbortController().signal)), McpBindingErrors.serverUnavailable);
    const first = message('slow', 'tools/call');
    const running = [router.serve(first, new AbortController().signal)];
    assert.equal(await refusal(router.serve({ ...first }, new AbortController().signal)), McpBindingErrors.invalidParams);
    for (let i = 1; i < 8; i++) running.push(router.serve(message('slow', 'tools/call'), new AbortController().signal));
    await waitFor(() => waiting.length === 8, { what: 'eight requests to run' });
    assert.equal(await refusal(router.serve(message('slow', 'tools/list'), new AbortController().signal)), McpBindingErrors.resourceLimitExceeded);
    for (const go of waiting) go();
    assert.deepEqual(
      await Promise.all(running),
      Array.from({ length: 8 }, () => ({ result: 'done' })),
    );
    const again = router.serve(message('slow', 'tools/list'), new AbortController().signal);
    await waitFor(() => waiting.length === 9, { what: 'a request past the others to run once they were answered' });
    waiting[8]!();
    assert.deepEqual(await again, { result: 'done' });
  });

  it('stops a running call when the agent cancels it or the session’s server is released, and refuses it afterwards', async () => {
    const { release } = register('vscode-1');
    const cancel = new AbortController();
    const cancelled = router.serve(message('vscode-1', 'tools/call', { name: 'hold' }), cancel.signal);
    await waitFor(() => held.length === 1, { what: 'the call to run' });
    cancel.abort(new AcpError(-32800, 'cancelled'));
    assert.equal(await refusal(cancelled), -32800);
    assert.equal(held[0]!.signal.aborted, true, 'the tool was told to stop');
    const running = router.serve(message('vscode-1', 'tools/call', { name: 'hold' }), new AbortController().signal);
    await waitFor(() => held.length === 2, { what: 'the second call to run' });
    release();
    assert.equal(await refusal(running), -32800, 'a running request is cancelled with its server');
    assert.equal(held[1]!.signal.aborted, true);
    assert.equal(await refusal(router.serve(message('vscode-1', 'tools/list'), new AbortController().signal)), McpBindingErrors.serverUnavailable);
  });

  it('tells the agent what a server says of a running request, and nothing once it is answered', async () => {
    let late: (() => Promise<void>) | undefined;
    router.register('progress', async (call) => {
      await call.notify('notifications/progress', { progress: 1 });
      late = () => call.notify('notifications/progress', { progress: 2 });
      return { result: { done: true } };
    });
    assert.deepEqual(await router.serve(message('progress', 'tools/call'), new AbortController().signal), { result: { done: true } });
    await late!();
    assert.deepEqual(sent, [{ serverId: 'progress', requestId: `r${ids}`, method: 'notifications/progress', params: { progress: 1 } }]);
  });

  it('says a server that gives no valid outcome, or fails, as the binding’s failure: never as an MCP answer or a code of its choosing', async () => {
    const broken: unknown[] = [
      { neither: true },
      { result: undefined },
      { result: 1, error: { code: 1, message: 'both' } },
      { error: { code: 'x' } },
    ];
    broken.forEach((outcome, i) => router.register(`broken-${i}`, async () => outcome as McpOutcome));
    router.register('throws', async () => Promise.reject(new Error('boom')));
    router.register('poses', async () => Promise.reject(new AcpError(McpBindingErrors.serverUnavailable, 'not really')));
    for (const id of [...broken.map((_, i) => `broken-${i}`), 'throws', 'poses']) {
      assert.equal(await refusal(router.serve(message(id, 'tools/list'), new AbortController().signal)), McpBindingErrors.backendFailed, id);
    }
  });

  it('refuses params past 256 KB, and an id registered before on the connection', async () => {
    register('vscode-1');
    const large = message('vscode-1', 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(300 * 1024) } });
    assert.equal(await refusal(router.serve(large, new AbortController().signal)), McpBindingErrors.resourceLimitExceeded);
    const { release } = register('vscode-2');
    release();
    assert.throws(() => register('vscode-2'), /already registered/);
  });
});
