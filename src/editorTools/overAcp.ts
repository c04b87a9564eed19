// The editor's tools through the ACP connection itself (MCP over ACP, see acp/mcpOverAcp.ts), for an agent on another
// machine, which cannot reach this machine's loopback and must never be given a way to it: the same tools, calls and
// grant as over HTTP. Each request is answered by a fresh MCP 2026-07-28 server of the official SDK, through the ACP
// SDK's `fromMcpServer`, which runs the MCP SDK's own request pipeline in-process (discovery, argument checks, errors):
// nothing lives between requests but the grant. The SDKs come from mcp.ts, a bundle apart (see mcpLoader.ts). Plain
// Node: no `vscode`.
import type { McpServe } from '../acp/mcpOverAcp';
import type { Logger } from '../acp/log';
import type { LiveGrant } from './grants';
import { loadMcp } from './mcpLoader';
import type { EditorTool } from './tools';

/** The `vscode` server over ACP for the session of `grant`; `close` ends what a request still runs. */
export function toolsOverAcp(tools: () => readonly EditorTool[], grant: LiveGrant, log: Logger): { readonly serve: McpServe; close(): void } {
  let server: ReturnType<typeof start> | undefined;
  // A start that failed fails this request (the router answers it as the server's failure), and the next tries again.
  const start = () =>
    loadMcp()
      .then((sdk) => sdk.overAcpServer(tools, grant, log))
      .catch((error: unknown) => {
        server = undefined;
        throw error;
      });
  return {
    serve: async (call) => (await (server ??= start())).serve(call),
    close: () => void server?.then((started) => started.close()).catch(() => undefined),
  };
}
