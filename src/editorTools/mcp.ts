// The MCP SDKs, and only here: the servers and transports the editor tools answer through (HTTP, the stdio bridge, MCP
// over ACP). The app's build makes this file a bundle of its own (dist/editor-tools-mcp.js), which `mcpLoader.ts`
// loads when a session offered the tools opens (or with its first request): in the core, the SDKs were a third of
// what loading it cost before the first chat of a window could open (the production build, loaded in Node: a median
// of 315 ms with them, 200 ms without). Plain Node: no `vscode`, and nothing here keeps state between calls (the
// bundle holds its own copies of what it imports from the rest of the core, zod's among them; the SDKs take schemas
// of another copy). The lint keeps the SDKs out of every other file.
import { fromMcpServer } from '@agentclientprotocol/sdk/experimental/mcp-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpServer as McpServerOverAcp } from '@modelcontextprotocol/server';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import type { McpServe } from '../acp/mcpOverAcp';
import type { Logger } from '../acp/log';
import type { LiveGrant } from './grants';
import { callTool, type EditorTool } from './tools';

/** What both SDKs' servers say they are, and offer. */
const SERVER_INFO = { name: 'vscode', version: '1.0.0' };
const SERVER_OPTIONS = { capabilities: { tools: {} } };

/** An MCP server with `tools` for the session of `grant`, for one request (HTTP) or one connection (the bridge). */
export function toolServer(tools: readonly EditorTool[], grant: LiveGrant, log: Logger): McpServer {
  const server = new McpServer(SERVER_INFO, SERVER_OPTIONS);
  for (const t of tools) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.input }, (args: unknown, extra: { signal: AbortSignal }) =>
      callTool(t, args, grant, log, extra.signal),
    );
  }
  return server;
}

/** The transport of one HTTP request: stateless, answered with JSON (no event stream). */
export function httpTransport(): StreamableHTTPServerTransport {
  return new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
}

/** The transport of one bridge connection, its messages bounded to `maxBufferSize` bytes. */
export function stdioTransport(input: Readable, output: Writable, maxBufferSize: number): StdioServerTransport {
  return new StdioServerTransport(input, output, { maxBufferSize });
}

/**
 * The `vscode` server over ACP for the session of `grant`: each request answered by a fresh MCP 2026-07-28 server of
 * `@modelcontextprotocol/server` through the ACP SDK's `fromMcpServer`; `close` ends what a request still runs.
 */
export function overAcpServer(
  tools: () => readonly EditorTool[],
  grant: LiveGrant,
  log: Logger,
): { readonly serve: McpServe; close(): Promise<void> } {
  const adapter = fromMcpServer(() => {
    const server = new McpServerOverAcp(SERVER_INFO, SERVER_OPTIONS);
    for (const t of tools()) {
      server.registerTool(t.name, { description: t.description, inputSchema: z.object(t.input) }, (args, ctx) =>
        callTool(t, args, grant, log, ctx.mcpReq.signal),
      );
    }
    return server;
  });
  return { serve: (call) => Promise.resolve(adapter.handler(call)), close: () => adapter.close() };
}
