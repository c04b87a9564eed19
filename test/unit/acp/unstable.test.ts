// f. What the client handles of the SDK's unstable schema (schema.unstable.json), checked against that schema with
// ajv as conformance.test.ts checks the stable one: the unstable client capabilities it advertises, and every update
// kind that only the unstable schema has, read by the inbound side and shown by the session model.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { capabilityName, clientCapabilities, supports, UNSTABLE_FEATURES } from '../../../src/acp/capabilities';
import { Inbound, type ClientHandler } from '../../../src/acp/inbound';
import type { Logger } from '../../../src/acp/log';
import type { AuthStatus } from '../../../src/acp/authStatus';
import { messageForkMeta } from '../../../src/acp/messageFork';
import { redact } from '../../../src/acp/redact';
import { UnstableClientMethods, UnstableMethods, UnstableNotifications } from '../../../src/acp/methods';
import { SessionModel } from '../../../src/acp/sessionModel';
import { repoRoot } from '../lib/transcripts';

type Json = Record<string, unknown>;
const schemaFile = (name: string) => join(repoRoot(), 'node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v1', name);
const unstable = JSON.parse(readFileSync(schemaFile('schema.unstable.json'), 'utf8')) as { $defs: Record<string, Json> } & Json;
const stable = JSON.parse(readFileSync(schemaFile('schema.json'), 'utf8')) as { $defs: Record<string, Json> } & Json;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(unstable, 'unstable.json');
function assertValid(name: string, value: unknown, what: string): void {
  const validate = ajv.compile({ $ref: `unstable.json#/$defs/${name}` });
  assert.ok(validate(value), `${what} does not validate against ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

const kindsOf = (schema: { $defs: Record<string, Json> }) =>
  ((schema.$defs['SessionUpdate']?.['oneOf'] ?? []) as Json[]).map((o) => ((o['properties'] as Json)['sessionUpdate'] as Json)['const'] as string);
const propertiesOf = (schema: { $defs: Record<string, Json> }, def: string) =>
  Object.keys((schema.$defs[def]?.['properties'] ?? {}) as Json).filter((k) => k !== '_meta');

/** One valid update of each kind only the unstable schema has; the test checks that this covers them all. */
const SAMPLES: Record<string, Json> = {
  plan_update: { plan: { type: 'items', planId: 'p1', entries: [{ content: 'step', priority: 'high', status: 'pending' }] } },
  plan_removed: { planId: 'p1' },
  subagent_update: { sessionId: 'child-1', title: 'Explore' },
  session_message: { messageId: 'm1', senderSessionId: 'sess-1', recipientSessionId: 'child-1', content: [{ type: 'text', text: 'go' }] },
  session_message_chunk: { messageId: 'm1', content: { type: 'text', text: ' on' } },
};

describe('f. what the client handles of the unstable schema', () => {
  it('advertises the unstable client capabilities it handles (subagents, plan), and they validate', () => {
    const advertised = { ...clientCapabilities({ terminalAuth: true }), fs: { readTextFile: true, writeTextFile: true }, terminal: true };
    assertValid('ClientCapabilities', advertised, 'the client capabilities');
    const onlyUnstable = propertiesOf(unstable, 'ClientCapabilities').filter((k) => !propertiesOf(stable, 'ClientCapabilities').includes(k));
    assert.deepEqual(onlyUnstable.sort(), ['plan', 'subagents']);
    for (const name of onlyUnstable) assert.deepEqual((advertised as Json)[name], {}, `${name} is advertised`);
  });

  it('reads every update kind only the unstable schema has, and each changes what the chat shows', () => {
    const kinds = kindsOf(unstable).filter((k) => !kindsOf(stable).includes(k));
    assert.deepEqual([...kinds].sort(), Object.keys(SAMPLES).sort(), 'the samples cover exactly the unstable kinds');
    const warnings: string[] = [];
    const log: Logger = { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
    const model = new SessionModel('sess-1');
    const child = () => model.subagents[0]?.model;
    // The client handler's routing (clientHandler.ts), reduced to one session and its child.
    const handler: ClientHandler = {
      requestPermission: () => Promise.reject(new Error('not asked here')),
      sessionUpdate: (n) => model.apply(n.update),
      subagentUpdate: (_parent, update) => void model.noteSubagent(update),
      sessionMessage: (sessionId, update) => (sessionId === 'sess-1' ? model : child())?.applySessionMessage(update),
      planById: (_sessionId, update) => model.applyPlanById(update),
    };
    const inbound = new Inbound(handler, {}, log);
    try {
      for (const kind of ['subagent_update', ...kinds.filter((k) => k !== 'subagent_update')]) {
        const params = { sessionId: 'sess-1', update: { sessionUpdate: kind, ...SAMPLES[kind] } };
        assertValid('SessionNotification', params, `the ${kind} sample`);
        let changed = 0;
        const listening = model.onDidChange(() => changed++);
        inbound.notified('session/update', params);
        listening.dispose();
        assert.deepEqual(warnings, [], `${kind} is read without a warning`);
        assert.ok(changed > 0, `${kind} changed nothing the chat shows`);
      }
      assert.deepEqual(model.plans.all, [], 'plan_removed removed the plan plan_update made');
      assert.equal(model.messages.all[0]?.text, 'go on');
    } finally {
      model.dispose();
    }
  });
  it('reads the agent\u2019s sign-in state (auth/status_update, and the auth/status answer) as the schema describes it, bounded', () => {
    const warnings: string[] = [];
    const log: Logger = { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
    const seen: AuthStatus[] = [];
    const handler: ClientHandler = {
      requestPermission: () => Promise.reject(new Error('not asked here')),
      sessionUpdate: () => {},
      authStatusUpdate: (status) => seen.push(status),
    };
    const inbound = new Inbound(handler, {}, log);
    const sample = {
      state: 'authenticated',
      accounts: [
        { label: 'Claude Max', email: 'ada@example.com', name: 'Ada', organization: 'Engines', active: true },
        { label: 'OpenAI API key', active: null },
      ],
    };
    assertValid('AuthStatusResponse', sample, 'the auth/status sample');
    assertValid('AuthStatusUpdateNotification', sample, 'the auth/status_update sample');
    inbound.notified('auth/status_update', sample);
    assert.deepEqual(seen[0], {
      state: 'authenticated',
      accounts: [{ label: 'Claude Max', email: 'ada@example.com', name: 'Ada', organization: 'Engines', active: true }, { label: 'OpenAI API key' }],
    });
    // A state it does not know counts as unknown; accounts that do not validate are skipped; at most 10, each field bounded.
    const many = Array.from({ length: 50 }, (_, i) => ({ label: `${'x'.repeat(1000)}${i}` }));
    inbound.notified('auth/status_update', { state: '_vendor_state', accounts: [{ email: 'no label' }, 7, ...many] });
    assert.equal(seen[1]?.state, 'unknown');
    assert.equal(seen[1]?.accounts.length, 10);
    assert.ok(seen[1]!.accounts.every((a) => a.label.length <= 201));
    assert.deepEqual(warnings, []);
    inbound.notified('auth/status_update', { accounts: [{ label: 'x', email: 'ada@example.com' }] });
    assert.equal(seen.length, 2, 'without a state it is skipped');
    assert.match(warnings[0] ?? '', /skipped a malformed auth\/status_update: "state"/);
    assert.doesNotMatch(warnings.join('\n'), /ada@example\.com/, 'an account is never logged');
    assert.equal(JSON.stringify(redact(sample)).includes('ada@example.com'), false, 'nor traced');
    inbound.notified('auth/status_update', { state: 'authenticated', accounts: [{ label: '$(check) Trusted\nline', name: '\u0007Ada' }] });
    assert.deepEqual(seen[2]?.accounts, [{ label: '$\u200b(check) Trusted line', name: 'Ada' }], 'one line, no icons, no control characters');
  });

  it('declares every unstable method it calls, and every unstable notification it reads, as the unstable schema names them', () => {
    const agentMethods = new Set(
      Object.values(unstable.$defs)
        .filter((d) => d['x-side'] === 'agent')
        .map((d) => d['x-method']),
    );
    for (const def of Object.values(UnstableMethods)) assert.ok(agentMethods.has(def.method), `${def.method} is not an agent method of the schema`);
    for (const def of Object.values(UnstableClientMethods)) {
      const request = Object.values(unstable.$defs).find((d) => d['x-side'] === 'client' && d['x-method'] === def.method && d['required']);
      assert.ok(request, `${def.method} is not a client request of the schema`);
    }
    // MCP over ACP: a request the schema takes is one the client reads, and the outcomes it answers are the schema's.
    const mcpRequest = { serverId: 'vscode-1', requestId: 'r1', method: 'tools/list', params: { _meta: {} } };
    assertValid('MessageMcpRequest', mcpRequest, 'an mcp/message request');
    assert.equal(UnstableClientMethods.mcpMessage.params.safeParse(mcpRequest).success, true);
    for (const outcome of [{ result: null }, { result: { tools: [] } }, { error: { code: -32022, message: 'Unsupported protocol version' } }]) {
      assertValid('MessageMcpResponse', outcome, JSON.stringify(outcome));
      assert.equal(UnstableClientMethods.mcpMessage.result.safeParse(outcome).success, true);
    }
    assertValid('McpServerAcp', { name: 'vscode', serverId: 'vscode-1' }, 'the declaration');
    for (const def of Object.values(UnstableNotifications)) {
      assert.ok(
        Object.values(unstable.$defs).some((d) => d['x-side'] === 'client' && d['x-method'] === def.method),
        `${def.method} is not a client notification of the schema`,
      );
    }
    assert.deepEqual(
      Object.values(UnstableMethods)
        .map((d) => d.method)
        .sort(),
      ['auth/status', 'session/archive', 'session/fork', 'session/set_title', 'session/status', 'session/unarchive'],
    );
  });
  it('asks for a fork at a message as a session/fork request the unstable schema takes (the point in its _meta)', () => {
    const point = { messageId: 'msg-1', fingerprint: `sha256:${'0'.repeat(64)}`, occurrence: 1 };
    assertValid('ForkSessionRequest', { sessionId: 'sess-1', cwd: '/work', mcpServers: [], _meta: messageForkMeta(point) }, 'a fork at a message');
  });

  it('reads every unstable agent capability where the unstable schema puts it, and only when advertised', () => {
    const defOf = (ref: unknown) => String(ref).replace('#/$defs/', '');
    const refOf = (prop: Json | undefined): string | undefined =>
      (prop?.['$ref'] as string | undefined) ??
      ([...((prop?.['anyOf'] as Json[] | undefined) ?? []), ...((prop?.['allOf'] as Json[] | undefined) ?? [])].find((a) => a['$ref'])?.['$ref'] as
        string | undefined);
    for (const feature of UNSTABLE_FEATURES) {
      const path = capabilityName(feature).split('.');
      let def = 'AgentCapabilities';
      for (const key of path.slice(0, -1)) def = defOf(refOf((unstable.$defs[def]?.['properties'] as Json | undefined)?.[key] as Json | undefined));
      const last = path.at(-1)!;
      const property = (unstable.$defs[def]?.['properties'] as Json | undefined)?.[last] as Json | undefined;
      assert.ok(property, `${capabilityName(feature)} is not in the unstable schema`);
      const advertised: Json = {};
      let at = advertised;
      for (const key of path.slice(0, -1)) at = (at[key] = {}) as Json;
      // A flag (mcpCapabilities.acp) is advertised as true; the others as an object.
      at[last] = property['type'] === 'boolean' ? true : {};
      assertValid('AgentCapabilities', advertised, `${capabilityName(feature)} advertised`);
      assert.equal(supports(advertised as never, feature), true, `${feature} when advertised`);
      assert.equal(supports({}, feature), false, `${feature} when not`);
    }
    assert.deepEqual([...UNSTABLE_FEATURES].sort(), [
      'archiveSession',
      'authStatus',
      'forkSession',
      'mcpAcp',
      'sessionStatus',
      'setSessionTitle',
      'systemPrompt',
    ]);
  });
});
