// Loads mcp.ts, the MCP SDKs, once: in the app's build a bundle of its own (dist/editor-tools-mcp.js, see esbuild.mjs),
// so that loading the core does not pay for them. Plain Node: no `vscode`.
import type * as Mcp from './mcp';

let loaded: typeof Mcp | undefined;

/** The MCP module, loaded on the first call. A load that failed (a broken install) is tried again on the next call. */
export async function loadMcp(): Promise<typeof Mcp> {
  // A require, not an import: in the app's build it is a file of its own beside dist/core.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./mcp') as typeof Mcp;
  return loaded;
}
