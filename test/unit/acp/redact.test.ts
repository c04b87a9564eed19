// Secrets never reach the log or a bug report: values of env and headers, and of keys that look like secrets, are
// redacted by shape; known secret values are scrubbed from any text.
import * as assert from 'node:assert/strict';
import { isSecretKey, redact, REDACTED, SecretScrubber, secretsIn } from '../../../src/acp/redact';

describe('redact', () => {
  it('hides every env value of acp.agents, keeping the names, the command and the args', () => {
    const agents = {
      'Claude Code': { command: 'npx', args: ['-y', '@zed-industries/claude-agent-acp'], env: { ANTHROPIC_API_KEY: 'sk-ant-123456', DEBUG: '1' } },
    };
    assert.deepEqual(redact(agents), {
      'Claude Code': { command: 'npx', args: ['-y', '@zed-industries/claude-agent-acp'], env: { ANTHROPIC_API_KEY: REDACTED, DEBUG: REDACTED } },
    });
    assert.deepEqual(secretsIn(agents), [
      { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-123456' },
      { name: 'DEBUG', value: '1' },
    ]);
  });

  it('hides env and headers of MCP servers, in the settings\u2019 map form and ACP\u2019s list form', () => {
    const servers = [
      { name: 'db', command: 'mcp-db', env: { PGPASSWORD: 'pw-123456' } },
      { name: 'gh', type: 'http', url: 'https://mcp.example', headers: { Authorization: 'Bearer ghp_1' } },
      { name: 'acp-form', command: 'x', env: [{ name: 'TOKEN', value: 'tok-123456' }], headers: [{ name: 'X-Api-Key', value: 'k-123456' }] },
      { name: 'strings', command: 'y', env: ['LEVEL=debug', 'bare-value'] },
    ];
    const out = JSON.stringify(redact(servers));
    for (const secret of ['pw-123456', 'Bearer ghp_1', 'tok-123456', 'k-123456', 'debug', 'bare-value'])
      assert.ok(!out.includes(secret), `${secret} in ${out}`);
    for (const kept of ['PGPASSWORD', 'Authorization', 'TOKEN', 'X-Api-Key', 'LEVEL=', 'https://mcp.example', 'mcp-db'])
      assert.ok(out.includes(kept), `${kept} missing from ${out}`);
    assert.deepEqual(
      secretsIn(servers).map((s) => s.name),
      ['PGPASSWORD', 'Authorization', 'TOKEN', 'X-Api-Key', 'LEVEL', 'env'],
    );
  });

  it('hides string values under keys that look like secrets, wherever they are', () => {
    const value = {
      apiKey: 'a1',
      GITHUB_TOKEN: 'a2',
      password: 'a3',
      clientSecret: 'a4',
      nested: { Authorization: 'a5', PGPASSWORD: 'a6', 'x-api-key': 'a7', private_key: 'a8', refresh_token: 'a9', auth: 'a10', credentials: 'a11' },
      // Not secrets:
      keyboard: 'qwerty',
      author: 'Ada',
      path: '/tmp/x',
      sessionId: 'sess-1',
      maxTokens: 4096,
      authMethods: [{ id: 'oauth-personal', name: 'Log in with Google' }],
      readMissingAsEmpty: true,
    };
    const out = redact(value) as Record<string, unknown>;
    const text = JSON.stringify(out);
    for (let i = 1; i <= 11; i++) assert.ok(!text.includes(`"a${i}"`), `a${i} in ${text}`);
    assert.equal(out['keyboard'], 'qwerty');
    assert.equal(out['author'], 'Ada');
    assert.equal(out['path'], '/tmp/x');
    assert.equal(out['sessionId'], 'sess-1');
    assert.equal(out['maxTokens'], 4096);
    assert.deepEqual(out['authMethods'], value.authMethods);
  });

  it('returns the same value when nothing is secret, and never changes its input', () => {
    const clean = { a: [1, { b: 'c' }], d: null };
    assert.equal(redact(clean), clean);
    const secret = { env: { K: 'v' }, keep: { x: 1 } };
    const out = redact(secret) as typeof secret;
    assert.deepEqual(secret, { env: { K: 'v' }, keep: { x: 1 } });
    assert.equal(out.keep, secret.keep, 'untouched branches are shared');
  });

  it('replaces what is nested too deep to walk, rather than letting it through unread', () => {
    let deep: unknown = { env: { K: 'deep-secret' } };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    assert.ok(!JSON.stringify(redact(deep)).includes('deep-secret'));
  });

  it('tells secret-looking keys apart by whole words', () => {
    for (const key of ['api_key', 'OPENAI_API_KEY', 'accessToken', 'secret', 'passwd', 'cookie', 'Authorization', 'authToken'])
      assert.ok(isSecretKey(key), key);
    for (const key of ['keyboard', 'monkey', 'author', 'path', 'sessionId', 'description', 'command']) assert.ok(!isSecretKey(key), key);
  });
});

describe('SecretScrubber', () => {
  it('replaces known secret values in any text with their name', () => {
    const scrubber = new SecretScrubber();
    scrubber.learn(secretsIn({ env: { OPENAI_API_KEY: 'sk-live-abcdef', DEBUG: '1' } }));
    assert.equal(
      scrubber.scrub('stderr: auth failed for sk-live-abcdef (twice: sk-live-abcdef)'),
      'stderr: auth failed for <redacted OPENAI_API_KEY> (twice: <redacted OPENAI_API_KEY>)',
    );
    assert.equal(scrubber.scrub('exit code 1'), 'exit code 1', 'values too short to be secrets are left alone');
  });

  it('finds a value in its JSON-escaped spelling, and replaces a longer value before one it contains', () => {
    const scrubber = new SecretScrubber();
    scrubber.learn([
      { name: 'QUOTED', value: 'pa"ss\\word' },
      { name: 'SHORT', value: 'abcdef' },
      { name: 'LONG', value: 'abcdef-ghijkl' },
    ]);
    assert.equal(scrubber.scrub(JSON.stringify({ text: 'pa"ss\\word' })), '{"text":"<redacted QUOTED>"}');
    assert.equal(scrubber.scrub('abcdef-ghijkl abcdef'), '<redacted LONG> <redacted SHORT>');
  });

  it('keeps what it learned when the settings change, since an agent may still run with the old value', () => {
    const scrubber = new SecretScrubber();
    scrubber.learn([{ name: 'K', value: 'old-secret' }]);
    scrubber.learn([{ name: 'K', value: 'new-secret' }]);
    assert.equal(scrubber.scrub('old-secret new-secret'), '<redacted K> <redacted K>');
  });
});
