// The host side of `npm run bench:mcp`, run by the extension host in place of the integration suite: it writes a
// TypeScript workspace of 1,000 files, waits for TypeScript, then times each tool two ways in the same run: called by
// the fixture agent through the `vscode` MCP server (HTTP, the official SDK's client, from the agent's process), and
// the same VS Code API called directly here. The figures go to ACP_TEST_RESULTS as JSON for the runner to print.
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as vscode from 'vscode';
import { messages, newChat, recorded, useFixtureAgent, workspaceFolder } from '../integration/lib/fixture';
import { waitFor } from '../lib/wait';

const FILES = 1000;
const CALLS = Math.max(5, Number(process.env['BENCH_CALLS'] ?? 40));

async function timed(times: number, run: () => Thenable<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  return ms;
}

export async function run(): Promise<void> {
  const results = process.env['ACP_TEST_RESULTS'];
  if (!results) throw new Error('ACP_TEST_RESULTS is not set');
  const folder = join(workspaceFolder(), 'bench');
  mkdirSync(join(folder, 'src'), { recursive: true });
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022' }, include: ['src'] }),
  );
  writeFileSync(join(folder, 'src', 'shared.ts'), 'export function shared(x: number): number {\n  return x * 2;\n}\n');
  for (let i = 0; i < FILES - 1; i++) {
    const wrong = i % 50 === 0 ? `export const wrong${i}: string = shared(${i});\n` : '';
    writeFileSync(
      join(folder, 'src', `m${i}.ts`),
      `import { shared } from './shared';\n\nexport function f${i}(x: number): number {\n  return shared(x) + ${i};\n}\n${wrong}`,
    );
  }
  const probe = vscode.Uri.file(join(folder, 'src', 'm0.ts'));
  const shared = vscode.Uri.file(join(folder, 'src', 'shared.ts'));
  await vscode.window.showTextDocument(probe);
  await waitFor(() => vscode.languages.getDiagnostics(probe).length > 0, { timeoutMs: 180_000, what: 'TypeScript to check m0.ts' });
  const at = new vscode.Position(0, 16);
  // Warm both ways once (the project's references are computed on first use).
  await waitFor(
    async () => ((await vscode.commands.executeCommand<unknown[]>('vscode.executeReferenceProvider', shared, at)) ?? []).length >= FILES,
    {
      timeoutMs: 180_000,
      what: 'TypeScript to find every reference',
    },
  );

  const direct = {
    get_diagnostics: await timed(CALLS, async () => vscode.languages.getDiagnostics(probe)),
    find_references: await timed(CALLS, () => vscode.commands.executeCommand('vscode.executeReferenceProvider', shared, at)),
    workspace_symbols: await timed(CALLS, () => vscode.commands.executeCommand('vscode.executeWorkspaceSymbolProvider', 'f12')),
  };

  const { recordFile } = await useFixtureAgent('mcp', { name: 'Bench Tooler' });
  const chat = await newChat();
  const script = [
    { tool: 'get_diagnostics', arguments: { path: 'bench/src/m0.ts' }, times: CALLS },
    { tool: 'find_references', arguments: { path: 'bench/src/shared.ts', line: 1, column: 17 }, times: CALLS },
    { tool: 'workspace_symbols', arguments: { query: 'f12' }, times: CALLS },
  ];
  await chat.send(JSON.stringify(script));
  const said = JSON.parse(messages(chat, 'agent').join('')) as { results: { tool: string; isError: boolean; text: string; ms: number[] }[] };
  const broken = said.results.filter((r) => r.isError).map((r) => `${r.tool}: ${r.text}`);
  const viaMcp = Object.fromEntries(said.results.map((r) => [r.tool, r.ms]));
  const hostile = await attack(recordFile);
  writeFileSync(results, JSON.stringify({ files: FILES, calls: CALLS, direct, viaMcp, hostile, broken }));
  chat.close();
}

/** A POST to the server; its status (0 when the connection failed). */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * A hostile client of the server, with the session's URL and secret (a hostile agent has both) and without: requests
 * with no secret, bodies too large and a flood of calls at once, while the host's heap and a direct API call are
 * watched. What it got back is counted by status.
 */
async function attack(recordFile: string): Promise<Record<string, unknown>> {
  const opened = recorded(recordFile).find((m) => m.method === 'session/new');
  const server = (opened?.params?.['mcpServers'] as { name: string; url?: string; headers?: { name: string; value: string }[] }[]).find(
    (x) => x.name === 'vscode',
  );
  const url = server?.url ?? '';
  const auth = { Authorization: server?.headers?.find((h) => h.name === 'Authorization')?.value ?? '' };
  const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const references = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'find_references', arguments: { path: 'bench/src/shared.ts', line: 1, column: 17 } },
  });
  // What the host keeps, not what it has yet to collect (the attacking client runs in this process too): a full GC
  // before each reading.
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const statuses: Record<string, number> = {};
  const count = (status: number) => (statuses[status] = (statuses[status] ?? 0) + 1);
  const started = performance.now();
  const requests: Promise<void>[] = [];
  for (let i = 0; i < 2000; i++) requests.push(post(url, {}, list).then((status) => void count(status)));
  for (let i = 0; i < 100; i++) requests.push(post(url, auth, 'x'.repeat(300 * 1024)).then((status) => void count(status)));
  for (let i = 0; i < 200; i++) requests.push(post(url, auth, references).then((status) => void count(status)));
  // The host answers the user meanwhile: a direct call of the API, timed while the flood is on.
  const during = await timed(5, async () => vscode.languages.getDiagnostics(vscode.Uri.file(join(workspaceFolder(), 'bench', 'src', 'm0.ts'))));
  await Promise.all(requests);
  gc();
  return {
    requests: requests.length,
    seconds: (performance.now() - started) / 1000,
    statuses,
    heapGrowthMb: (process.memoryUsage().heapUsed - heapBefore) / (1024 * 1024),
    directCallDuringMs: Math.max(...during),
  };
}
