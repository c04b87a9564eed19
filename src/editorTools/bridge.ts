// dist/mcp-stdio.js: the editor's tools for an agent that takes MCP servers over stdio only. The agent runs it with
// the extension host's own runtime (ELECTRON_RUN_AS_NODE=1); it connects to the window's socket, sends its session's
// secret as the first line, then carries the agent's stdin to the socket and the socket to its stdout until either
// ends. It holds no state and reads nothing else.
import { connect } from 'node:net';

const address = process.env['ACP_EDITOR_TOOLS_SOCKET'];
const secret = process.env['ACP_EDITOR_TOOLS_SECRET'];
if (!address || !secret) {
  process.stderr.write('mcp-stdio: ACP_EDITOR_TOOLS_SOCKET and ACP_EDITOR_TOOLS_SECRET must be set (the editor sets them)\n');
  process.exit(2);
}
const socket = connect(address, () => {
  socket.write(`${secret}\n`);
  process.stdin.pipe(socket);
  socket.pipe(process.stdout);
});
socket.on('error', (error) => {
  process.stderr.write(`mcp-stdio: ${error.message}\n`);
  process.exit(1);
});
socket.on('close', () => process.exit(0));
process.stdin.on('end', () => socket.end());
