import * as assert from 'node:assert/strict';
import { additionalDirectories, parseMcpServers } from '../../../src/settings/mcpConfig';

describe('parseMcpServers (the acp.mcpServers setting)', () => {
  it('reads stdio servers and http and sse servers keyed by name, in ACP\u2019s shape', () => {
    const { servers, problems } = parseMcpServers({
      files: { command: 'npx', args: ['-y', 'mcp-files'], env: { ROOT: '/work' } },
      plain: { type: 'stdio', command: '/opt/mcp' },
      docs: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      events: { type: 'sse', url: 'http://127.0.0.1:3000/sse' },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(servers, [
      { name: 'files', command: 'npx', args: ['-y', 'mcp-files'], env: [{ name: 'ROOT', value: '/work' }] },
      { name: 'plain', command: '/opt/mcp', args: [], env: [] },
      { type: 'http', name: 'docs', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'sse', name: 'events', url: 'http://127.0.0.1:3000/sse', headers: [] },
    ]);
  });

  it('is empty, without problems, when unset', () => {
    assert.deepEqual(parseMcpServers(undefined), { servers: [], problems: [] });
    assert.deepEqual(parseMcpServers({}), { servers: [], problems: [] });
  });

  it('skips each bad entry with a sentence that names it, and keeps the good ones', () => {
    const { servers, problems } = parseMcpServers({
      good: { command: 'good' },
      noCommand: { args: [] },
      blank: { command: ' ' },
      badArgs: { command: 'x', args: 'a b' },
      badEnv: { command: 'x', env: { N: 1 } },
      noUrl: { type: 'http' },
      badUrl: { type: 'sse', url: 'file:///etc/passwd' },
      badType: { type: 'websocket', url: 'ws://x' },
      badHeaders: { type: 'http', url: 'https://x.example', headers: ['a'] },
      extra: { command: 'x', cwd: '/tmp' },
      notObject: 'npx mcp',
      '': { command: 'x' },
    });
    assert.deepEqual(
      servers.map((s) => s.name),
      ['good'],
    );
    assert.deepEqual(problems, [
      'The MCP server "noCommand" in "acp.mcpServers" was skipped: it needs a "command" (or a "type" of "http" or "sse" with a "url").',
      'The MCP server "blank" in "acp.mcpServers" was skipped: its "command" is empty.',
      'The MCP server "badArgs" in "acp.mcpServers" was skipped: its "args" must be a list of strings.',
      'The MCP server "badEnv" in "acp.mcpServers" was skipped: its "env" must map names to string values.',
      'The MCP server "noUrl" in "acp.mcpServers" was skipped: it needs a "url".',
      'The MCP server "badUrl" in "acp.mcpServers" was skipped: its "url" must be an http:// or https:// address.',
      'The MCP server "badType" in "acp.mcpServers" was skipped: its "type" must be "stdio", "http" or "sse".',
      'The MCP server "badHeaders" in "acp.mcpServers" was skipped: its "headers" must map names to string values.',
      'The MCP server "extra" in "acp.mcpServers" was skipped: it has unknown keys: cwd.',
      'The MCP server "notObject" in "acp.mcpServers" must be an object with a "command", or a "type" and a "url".',
      'An MCP server in "acp.mcpServers" has an empty name.',
    ]);
  });

  it('never puts an env or header value into a problem sentence', () => {
    const { problems } = parseMcpServers({ leaky: { type: 'http', url: 'nope', headers: { Authorization: 'Bearer secret' } } });
    assert.equal(problems.length, 1);
    assert.ok(!problems[0]?.includes('secret'));
  });

  it('explains a value of the wrong shape', () => {
    assert.deepEqual(parseMcpServers(['npx']).problems, ['The "acp.mcpServers" setting must be an object whose keys are server names.']);
  });
});

describe('additionalDirectories', () => {
  it('is every other workspace folder, each once', () => {
    assert.deepEqual(additionalDirectories(['/w/a', '/w/b', '/w/c', '/w/b'], '/w/a'), ['/w/b', '/w/c']);
    assert.deepEqual(additionalDirectories(['/w/a'], '/w/a'), []);
  });
});
