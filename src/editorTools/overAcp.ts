// The editor's tools through the ACP connection itself (MCP over ACP, see acp/mcpOverAcp.ts), for an agent on another
// machine, which cannot reach this machine's loopback and must never be given a way to it: the same tools, calls and
// grant as over HTTP. Each request is answered by a fresh MCP 2026-07-28 server of the official SDK, through the ACP
// SDK's `fromMcpServer`, which runs the MCP SDK's own request pipeline in-process (discovery, argument checks, errors):
// nothing lives between requests but the grant. Plain Node: no `vscode`.
import { fromMcpServer } from '@agentclientprotocol/sdk/experimental/mcp-server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpServe } from '../acp/mcpOverAcp';
import type { Logger } from '../acp/log';
import type { LiveGrant } from './grants';
import { callTool, type EditorTool } from './tools';

/** The `vscode` server over ACP for the session of `grant`; `close` ends what a request still runs. */
export function toolsOverAcp(tools: () => readonly EditorTool[], grant: LiveGrant, log: Logger): { readonly serve: McpServe; close(): void } {
  const adapter = fromMcpServer(() => {
    const server = new McpServer({ name: 'vscode', version: '1.0.0' }, { capabilities: { tools: {} } });
    for (const t of tools()) {
      server.registerTool(t.name, { description: t.description, inputSchema: z.object(t.input) }, (args, ctx) =>
        callTool(t, args, grant, log, ctx.mcpReq.signal),
      );
    }
    return server;
  });
  return {
    serve: (call) => Promise.resolve(adapter.handler(call)),
    close: () => void adapter.close().catch(() => undefined),
  };
}
