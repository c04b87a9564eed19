// What the agent did not advertise cannot be called: one answer per feature, shared by the connection's gate and
// by whatever offers the feature (Open Previous Session, Sign Out, images in the composer).
import * as assert from 'node:assert/strict';
import {
  ACCEPTS_NOTHING,
  advertisedCapabilities,
  AGENT_FEATURES,
  EXTENSION_FEATURES,
  AgentCapabilities,
  capabilityName,
  mcpFeature,
  promptFeature,
  supports,
} from '../../../src/acp/capabilities';
import type * as S from '../../../src/acp/schema.gen';

const EVERYTHING: S.AgentCapabilities = {
  loadSession: true,
  promptCapabilities: { image: true, audio: true, embeddedContext: true },
  mcpCapabilities: { http: true, sse: true },
  sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
  auth: { logout: {} },
};

describe('agent capabilities', () => {
  it('an agent that advertised nothing, or is not initialized yet, supports nothing optional', () => {
    for (const feature of AGENT_FEATURES) {
      assert.equal(supports({}, feature), false, feature);
      assert.equal(supports(undefined, feature), false, feature);
    }
    assert.deepEqual(new AgentCapabilities(undefined).accepts, ACCEPTS_NOTHING);
    assert.equal(new AgentCapabilities({}).reopens, undefined);
  });

  it('an agent that advertised everything supports every feature', () => {
    for (const feature of AGENT_FEATURES) assert.equal(supports(EVERYTHING, feature), true, feature);
  });

  it('an empty object advertises a session capability, but a prompt or MCP capability needs true', () => {
    assert.equal(supports({ sessionCapabilities: { list: {} } }, 'listSessions'), true);
    assert.equal(supports({ sessionCapabilities: { list: null } }, 'listSessions'), false);
    assert.equal(supports({ promptCapabilities: { image: false, embeddedContext: true } }, 'promptImage'), false);
    assert.equal(supports({ mcpCapabilities: { http: true } }, 'mcpSse'), false);
    assert.equal(supports({ loadSession: false }, 'loadSession'), false);
  });

  it('names where each feature is advertised, for refusals and the log', () => {
    assert.equal(capabilityName('listSessions'), 'sessionCapabilities.list');
    assert.equal(capabilityName('logout'), 'auth.logout');
    assert.equal(capabilityName('mcpHttp'), 'mcpCapabilities.http');
  });

  it('knows what a prompt block and an MCP server need; text, links and stdio servers need nothing', () => {
    assert.equal(promptFeature({ type: 'text' }), undefined);
    assert.equal(promptFeature({ type: 'resource_link' }), undefined);
    assert.equal(promptFeature({ type: 'image' }), 'promptImage');
    assert.equal(promptFeature({ type: 'audio' }), 'promptAudio');
    assert.equal(promptFeature({ type: 'resource' }), 'promptEmbeddedContext');
    assert.equal(mcpFeature({ name: 'files', command: '/bin/mcp', args: [], env: [] }), undefined);
    assert.equal(mcpFeature({ type: 'http', name: 'docs', url: 'http://x', headers: [] }), 'mcpHttp');
    assert.equal(mcpFeature({ type: 'sse', name: 'events', url: 'http://x', headers: [] }), 'mcpSse');
  });

  it('reopens an earlier session by replay when it can, else by resuming, else not at all', () => {
    assert.equal(new AgentCapabilities({ loadSession: true, sessionCapabilities: { resume: {} } }).reopens, 'load');
    assert.equal(new AgentCapabilities({ sessionCapabilities: { resume: {} } }).reopens, 'resume');
    assert.equal(new AgentCapabilities({ sessionCapabilities: { list: {} } }).reopens, undefined);
  });

  it('says what a prompt may carry besides text and links', () => {
    assert.deepEqual(new AgentCapabilities({ promptCapabilities: { image: true } }).accepts, { image: true, audio: false, embeddedContext: false });
    assert.deepEqual(new AgentCapabilities(EVERYTHING).accepts, { image: true, audio: true, embeddedContext: true });
  });
});

describe('extensions advertised outside the schema', () => {
  it('reads steering from the initialize answer\u2019s _meta (where the adapters put it) or from agentCapabilities._meta', () => {
    assert.deepEqual(EXTENSION_FEATURES, ['steering', 'forkAtMessage']);
    assert.equal(supports(advertisedCapabilities({ agentCapabilities: {}, _meta: { steering: true } }), 'steering'), true);
    assert.equal(supports(advertisedCapabilities({ agentCapabilities: { _meta: { steering: {} } } }), 'steering'), true);
    assert.equal(supports(advertisedCapabilities({ agentCapabilities: {} }), 'steering'), false);
    assert.equal(
      supports(advertisedCapabilities({ agentCapabilities: {}, _meta: { steering: 'yes' } }), 'steering'),
      false,
      'only true or an object advertise it',
    );
    assert.ok(!AGENT_FEATURES.includes('steering'), 'the schema checks leave it out');
  });
});

describe('forking at a message (_meta.jetbrains.air.fork)', () => {
  const FORK = { sessionCapabilities: { fork: {} } } as S.AgentCapabilities;
  const AT = { jetbrains: { air: { fork: { version: 1, inclusive: true } } } };
  const at = (result: Parameters<typeof advertisedCapabilities>[0]) => supports(advertisedCapabilities(result), 'forkAtMessage');

  it('is advertised as {version: 1, inclusive: true}, and only beside session/fork', () => {
    assert.equal(at({ agentCapabilities: { ...FORK, _meta: AT } }), true);
    assert.equal(at({ agentCapabilities: { _meta: AT } }), false, 'no session/fork, no fork at a message');
    assert.equal(at({ agentCapabilities: { ...FORK, _meta: { jetbrains: { air: { fork: { version: 2, inclusive: true } } } } } }), false);
    assert.equal(
      at({ agentCapabilities: { ...FORK, _meta: { jetbrains: { air: { fork: { version: 1 } } } } } }),
      false,
      'a fork that leaves the message out',
    );
    assert.equal(at({ agentCapabilities: { ...FORK, _meta: { jetbrains: { air: { fork: true } } } } }), false);
    assert.equal(at({ agentCapabilities: FORK }), false);
  });

  it('is read as advertised for the adapters that fork at a message without saying so, from the version that does', () => {
    const adapter = (name: string, version: string) => at({ agentCapabilities: FORK, agentInfo: { name, version } });
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '0.75.1'), true);
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '0.80.0'), true);
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '1.0.0'), true);
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '0.75.0'), false, 'an earlier one would copy the whole session');
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '0.9.99'), false);
    assert.equal(adapter('@agentclientprotocol/claude-agent-acp', '0.76.0-beta.1'), false, 'not plain x.y.z');
    assert.equal(adapter('@agentclientprotocol/codex-acp', '1.10.0'), true);
    assert.equal(adapter('@agentclientprotocol/codex-acp', '1.9.12'), false);
    assert.equal(adapter('codex-acp', '1.10.0'), false, 'Zed’s adapter calls itself codex-acp and does not fork at a message');
    assert.equal(adapter('acp-fixture-agent', '99.0.0'), false, 'an agent not known to');
    assert.equal(
      at({ agentCapabilities: {}, agentInfo: { name: '@agentclientprotocol/codex-acp', version: '2.0.0' } }),
      false,
      'still only beside session/fork',
    );
  });

  it('leaves what a known adapter advertises itself as it is', () => {
    const own = { ...FORK, _meta: { jetbrains: { air: { fork: { version: 2, inclusive: true } } } } };
    assert.equal(at({ agentCapabilities: own, agentInfo: { name: '@agentclientprotocol/claude-agent-acp', version: '0.80.0' } }), false);
  });

  it('keeps what else the agent put under _meta.jetbrains when it adds the fork', () => {
    const caps = advertisedCapabilities({
      agentCapabilities: { ...FORK, _meta: { jetbrains: { air: { version: 1, capabilities: ['sessionFailure'] } }, other: 1 } },
      agentInfo: { name: '@agentclientprotocol/codex-acp', version: '1.10.0' },
    });
    assert.deepEqual(caps._meta, {
      jetbrains: { air: { version: 1, capabilities: ['sessionFailure'], fork: { version: 1, inclusive: true } } },
      other: 1,
    });
  });
});
