// Conformance against the official ACP v1 JSON schema (node_modules/@agentclientprotocol/sdk/schema/v1/schema.json),
// validated with ajv (draft 2020-12) against the schema's own `$defs` — never the root schema, which accepts anything
// shaped like JSON-RPC.
//   a. The agent transcripts: conformant lines validate, quirk lines do not, and our reader handles each as its quirk says.
//   b. Every message our client writes validates against the `$def` for its method.
//   c. The zod generator covers every `$def` and the committed schema.gen.ts is up to date.
//   d. Our methods table agrees with the schema's `x-method` / `x-side` annotations.
//   e. Every client capability of the schema is advertised, and every session update kind changes the session model.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { z } from 'zod';
import { AGENT_FEATURES, capabilityName, clientCapabilities, supports } from '../../../src/acp/capabilities';
import { AcpClientConnection } from '../../../src/acp/connection';
import { type ClientHandler } from '../../../src/acp/inbound';
import { AcpError, ErrorCodes } from '../../../src/acp/errors';
import { AgentMethods, AgentNotifications, CancelRequest, ClientMethods, ClientNotifications } from '../../../src/acp/methods';
import * as S from '../../../src/acp/schema.gen';
import { parseTolerant } from '../../../src/acp/tolerance';
import { ndjsonTransport } from '../../../src/acp/transport';
import { readSessionUpdate } from '../../../src/acp/updates';
import { SessionModel } from '../../../src/acp/sessionModel';
import { loadTranscript, quirkKind, repoRoot, TRANSCRIPT_NAMES, type TranscriptLine } from '../lib/transcripts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- the schema -------------------------------------------------------------------------------------------------

const SCHEMA_PATH = join(repoRoot(), 'node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v1', 'schema.json');
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, Json> } & Json;
const defs = schema.$defs;

/** The JSON-RPC envelopes: unions of every method, which the generator deliberately leaves out. */
const ENVELOPES = [
  'AgentRequest',
  'AgentResponse',
  'AgentNotification',
  'ClientRequest',
  'ClientResponse',
  'ClientNotification',
  'ExtRequest',
  'ExtResponse',
  'ExtNotification',
];

function collectKeys(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) collectKeys(item, found);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      collectKeys(value, found);
    }
  }
  return found;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addVocabulary([...collectKeys(schema, new Set())]);
ajv.addSchema(schema, 'schema.json');

const validators = new Map<string, ValidateFunction>();
/** The validator of one `$def`. */
function validatorFor(name: string): ValidateFunction {
  assert.ok(defs[name], `the schema has no $def ${name}`);
  let v = validators.get(name);
  if (!v) {
    v = ajv.compile({ $ref: `schema.json#/$defs/${name}` });
    validators.set(name, v);
  }
  return v;
}

/** undefined when `value` is valid for the `$def`, else a readable account of why not. */
function violations(name: string, value: unknown): string | undefined {
  const v = validatorFor(name);
  // Validate what would go on the wire: JSON drops keys whose value is undefined.
  if (v(value === undefined ? undefined : JSON.parse(JSON.stringify(value)))) return undefined;
  return ajv.errorsText(v.errors, { dataVar: name });
}

function assertValid(name: string, value: unknown, what: string): void {
  const problem = violations(name, value);
  assert.equal(problem, undefined, `${what} does not validate against ${name}: ${problem}\n${JSON.stringify(value)}`);
}

/** `$def` names referenced (directly) from the `prop` ("params" or "result") of a JSON-RPC envelope. */
function envelopeMembers(envelope: string, prop: 'params' | 'result'): Set<string> {
  const found = new Set<string>();
  const refs = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(refs);
    else if (isObject(node)) {
      if (typeof node['$ref'] === 'string') found.add(node['$ref'].replace('#/$defs/', ''));
      for (const value of Object.values(node)) refs(value);
    }
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isObject(node)) {
      const props = node['properties'];
      if (isObject(props) && props[prop] !== undefined) refs(props[prop]);
      for (const [key, value] of Object.entries(node)) if (key !== 'properties') walk(value);
    }
  };
  walk(defs[envelope]);
  for (const name of [...found]) if (name.startsWith('Ext')) found.delete(name);
  return found;
}

type Role = 'request' | 'response' | 'notification';
interface MethodDefs {
  side: 'agent' | 'client' | 'protocol';
  request?: string;
  response?: string;
  notification?: string;
}

/**
 * Every method of the schema, from its `x-method`/`x-side` annotations; whether a `$def` is the params, the result or
 * a notification comes from the envelope that lists it (x-side "agent": the agent serves it, so the client sends it).
 */
const METHODS: ReadonlyMap<string, MethodDefs> = (() => {
  const roles: Record<'agent' | 'client', Record<Role, Set<string>>> = {
    agent: {
      request: envelopeMembers('ClientRequest', 'params'),
      response: envelopeMembers('AgentResponse', 'result'),
      notification: envelopeMembers('ClientNotification', 'params'),
    },
    client: {
      request: envelopeMembers('AgentRequest', 'params'),
      response: envelopeMembers('ClientResponse', 'result'),
      notification: envelopeMembers('AgentNotification', 'params'),
    },
  };
  const methods = new Map<string, MethodDefs>();
  for (const [name, def] of Object.entries(defs)) {
    const method = def['x-method'];
    const side = def['x-side'];
    if (typeof method !== 'string') continue;
    assert.ok(side === 'agent' || side === 'client' || side === 'protocol', `${name}: x-side ${String(side)}`);
    const entry = methods.get(method) ?? { side };
    assert.equal(entry.side, side, `${method}: ${name} disagrees about x-side`);
    const role: Role | undefined =
      side === 'protocol' ? 'notification' : (['request', 'response', 'notification'] as const).find((r) => roles[side][r].has(name));
    assert.ok(role, `${name} (x-method ${method}) is in none of the ${side} envelopes`);
    assert.equal(entry[role], undefined, `${method} has two ${role} $defs`);
    entry[role] = name;
    methods.set(method, entry);
  }
  return methods;
})();

function defOf(method: string, role: Role): string {
  const name = METHODS.get(method)?.[role];
  assert.ok(name, `the schema has no ${role} $def for ${method}`);
  return name;
}

// ---- tests ------------------------------------------------------------------------------------------------------

describe('conformance with the ACP v1 JSON schema', () => {
  it('validating against the root schema is worthless; a $def validator is not', () => {
    const bogus = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'bogus' } } };
    const root = ajv.getSchema('schema.json');
    assert.ok(root, 'the root schema is registered');
    assert.equal(root(bogus), true, 'the root schema accepts a session/update with a bogus kind');
    assert.notEqual(violations('SessionNotification', bogus.params), undefined, 'SessionNotification rejects it');
    assert.equal(
      violations('SessionNotification', { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } }),
      undefined,
    );
  });

  describe('a. agent transcripts', () => {
    for (const name of TRANSCRIPT_NAMES) {
      describe(`${name}.jsonl`, () => {
        const lines = loadTranscript(name);

        it('has 30 to 80 lines of session "sess-1"', () => {
          assert.ok(lines.length >= 30 && lines.length <= 80, `${lines.length} lines`);
          for (const line of lines) assert.equal(line.params['sessionId'], 'sess-1', `line ${line.line}`);
        });

        it('every conformant line validates against its $def, and we read it without a warning', () => {
          for (const line of lines.filter((l) => l.quirk === undefined)) {
            assertValid(transcriptDef(line), line.params, `${name}:${line.line}`);
            const read = readLine(line);
            assert.ok(read.ok, `${name}:${line.line} was rejected: ${read.ok ? '' : read.reason}`);
            assert.deepEqual(read.warnings, [], `${name}:${line.line}`);
          }
        });

        it('every quirk line fails its $def, and we map, skip or repair it as the quirk says', () => {
          for (const line of lines.filter((l) => l.quirk !== undefined)) {
            const where = `${name}:${line.line} (${line.quirk})`;
            assert.notEqual(violations(transcriptDef(line), line.params), undefined, `${where} is marked as a quirk but is conformant`);
            const read = readLine(line);
            if (quirkKind(line) === 'unknown-kind') {
              assert.equal(read.ok, false, where);
              assert.equal(!read.ok && read.skipped, 'unknown-kind', where);
              continue;
            }
            assert.ok(read.ok, `${where} was rejected: ${read.ok ? '' : read.reason}`);
            // Whatever we keep is conformant: legacy names are mapped, invalid fields and items dropped.
            assertValid(transcriptDef(line), read.value, `${where}, as we read it,`);
            if (quirkKind(line) === 'legacy') {
              checkLegacyMapping(line, read.value as Json, where);
            } else {
              assert.ok(read.warnings.length > 0, `${where}: nothing dropped without a warning`);
            }
          }
        });
      });
    }

    it('the transcripts show every real-agent quirk of the notes', () => {
      const all = TRANSCRIPT_NAMES.map((name) => ({ name, lines: loadTranscript(name) }));
      const updates = (lines: TranscriptLine[]) => lines.filter((l) => l.method === 'session/update').map((l) => l.params['update'] as Json);
      for (const { name, lines } of all) {
        const ups = updates(lines);
        const kinds = ups.map((u) => u['sessionUpdate']);
        const count = (kind: string) => kinds.filter((k) => k === kind).length;
        for (const kind of ['available_commands_update', 'current_mode_update', 'agent_thought_chunk', 'tool_call', 'tool_call_update']) {
          assert.ok(count(kind) >= 1, `${name} has no ${kind}`);
        }
        assert.ok(count('usage_update') >= 2, `${name}: usage_update arrives often`);
        assert.ok(count('plan') >= 2, `${name}: plans are replaced whole, so there are several`);
        assert.ok(
          lines.some((l) => l.method === 'session/request_permission'),
          `${name} asks for permission`,
        );
        // Empty agent_message_chunk text at the start of text blocks.
        assert.ok(
          ups.some((u) => u['sessionUpdate'] === 'agent_message_chunk' && (u['content'] as Json)['text'] === ''),
          `${name}: empty first chunk`,
        );
        // A diff for a new file.
        assert.ok(JSON.stringify(lines).includes('"oldText":null'), `${name}: diff with oldText null`);
        // An update or a permission request for an id never announced by a tool_call before it.
        const announced = new Set<unknown>();
        let unannounced = false;
        for (const line of lines) {
          const update = line.params['update'] as Json | undefined;
          const id = line.method === 'session/request_permission' ? (line.params['toolCall'] as Json)['toolCallId'] : update?.['toolCallId'];
          if (update?.['sessionUpdate'] === 'tool_call') announced.add(id);
          else if (id !== undefined && !announced.has(id)) unannounced = true;
        }
        assert.ok(unannounced, `${name}: an id that was never announced`);
      }
      const everything = all.flatMap((t) => t.lines);
      const ups = updates(everything);
      const kinds = new Set(ups.map((u) => u['sessionUpdate']));
      for (const kind of ['user_message_chunk', 'config_option_update', 'session_info_update']) assert.ok(kinds.has(kind), `no ${kind}`);
      assert.ok(
        ups.some((u) => typeof u['messageId'] === 'string'),
        'messageIds',
      );
      // The same tool_call id announced twice, first with rawInput {}.
      const calls = ups.filter((u) => u['sessionUpdate'] === 'tool_call');
      assert.ok(
        calls.some(
          (u, i) =>
            JSON.stringify(u['rawInput']) === '{}' &&
            calls.slice(i + 1).some((v) => v['toolCallId'] === u['toolCallId'] && JSON.stringify(v['rawInput']) !== '{}'),
        ),
        'a tool_call announced twice, rawInput {} then full',
      );
      // Terminal content for a terminal the client never created, with _meta.terminal_output and terminal_exit.
      assert.ok(
        ups.some((u) => JSON.stringify(u['content'] ?? []).includes('"type":"terminal"')),
        'terminal content',
      );
      assert.ok(
        ups.some((u) => isObject(u['_meta']) && isObject(u['_meta']['terminal_output'])),
        '_meta.terminal_output',
      );
      assert.ok(
        ups.some((u) => isObject(u['_meta']) && isObject(u['_meta']['terminal_exit'])),
        '_meta.terminal_exit',
      );
      // codex: the call whose permission is rejected gets no final update.
      const codex = loadTranscript('codex');
      const lastAsk = [...codex].reverse().find((l) => l.method === 'session/request_permission');
      assert.ok(lastAsk, 'codex asks for permission');
      const askedId = (lastAsk.params['toolCall'] as Json)['toolCallId'];
      const after = codex.slice(codex.indexOf(lastAsk) + 1).map((l) => l.params['update'] as Json | undefined);
      assert.ok(!after.some((u) => u?.['toolCallId'] === askedId), 'codex leaves the rejected call without a final update');
      // Every quirk kind appears, including an unknown enum value ("browse").
      const quirks = everything.filter((l) => l.quirk !== undefined);
      for (const kind of ['legacy', 'unknown-kind', 'invalid-value', 'invalid-item'])
        assert.ok(
          quirks.some((l) => quirkKind(l) === kind),
          `no ${kind} quirk`,
        );
      assert.ok(
        ups.some((u) => u['kind'] === 'browse'),
        'tool kind "browse"',
      );
      assert.ok(
        ups.some((u) => u['status'] === 'success' && u['output'] !== undefined && u['id'] !== undefined),
        'legacy id/status/output',
      );
      assert.ok(
        ups.some((u) => u['sessionUpdate'] === 'tool_call' && u['id'] !== undefined && u['arguments'] !== undefined),
        'legacy id/name/arguments',
      );
    });
  });

  describe('b. every message the client sends', () => {
    let agent: FakeAgent;

    before(async function () {
      this.timeout(10_000);
      agent = await runClientScenario();
    });
    after(() => agent?.dispose());

    it('is one JSON-RPC 2.0 object per line, never a batch', () => {
      assert.ok(agent.sent.length > 20);
      for (const message of agent.sent) {
        assert.ok(isObject(message), `not an object: ${JSON.stringify(message)}`);
        assert.equal(message['jsonrpc'], '2.0');
      }
    });

    it('each request validates against the <X>Request $def of its method, and every agent method was sent', () => {
      const requests = agent.sent.filter((m) => isObject(m) && typeof m['method'] === 'string' && m['id'] !== undefined) as Json[];
      for (const request of requests) {
        const method = request['method'] as string;
        assert.equal(METHODS.get(method)?.side, 'agent', `${method} is not an agent method`);
        assert.ok(typeof request['id'] === 'number' || typeof request['id'] === 'string', `${method}: id ${String(request['id'])}`);
        assertValid(defOf(method, 'request'), request['params'], `the ${method} request`);
      }
      const sent = new Set(requests.map((r) => r['method']));
      const expected = [...METHODS].filter(([, d]) => d.side === 'agent' && d.request).map(([m]) => m);
      assert.deepEqual(
        expected.filter((m) => !sent.has(m)),
        [],
        'agent methods the scenario never sent',
      );
    });

    it('covers the variants: MCP servers stdio and http, additionalDirectories, all prompt content types', () => {
      const params = (method: string) => agent.sent.filter((m) => isObject(m) && m['method'] === method).map((m) => (m as Json)['params'] as Json);
      const newSession = params('session/new')[0];
      assert.ok(newSession);
      const servers = newSession['mcpServers'] as Json[];
      assert.ok(servers.some((s) => s['type'] === 'http') && servers.some((s) => s['type'] === undefined && typeof s['command'] === 'string'));
      assert.deepEqual(newSession['additionalDirectories'], ['/work/lib']);
      const types = new Set(params('session/prompt').flatMap((p) => (p['prompt'] as Json[]).map((b) => b['type'])));
      assert.deepEqual([...types].sort(), ['audio', 'image', 'resource', 'resource_link', 'text']);
    });

    it('session/cancel validates against CancelNotification and $/cancel_request against CancelRequestNotification', () => {
      const notifications = agent.sent.filter((m) => isObject(m) && typeof m['method'] === 'string' && m['id'] === undefined) as Json[];
      const methods = notifications.map((n) => n['method']);
      assert.ok(methods.includes('session/cancel'), 'session/cancel sent');
      assert.ok(methods.includes('$/cancel_request'), '$/cancel_request sent');
      assert.ok(!methods.includes('$/cancelRequest'), 'vscode-jsonrpc spelling never reaches the wire');
      for (const n of notifications) {
        const method = n['method'] as string;
        const def = METHODS.get(method);
        assert.ok(def && def.side !== 'client', `${method} is not a notification the client may send`);
        assertValid(defOf(method, 'notification'), n['params'], `the ${method} notification`);
      }
      const cancel = notifications.find((n) => n['method'] === '$/cancel_request');
      const cancelled = agent.requestsSeen.find((r) => r['method'] === 'session/list' && r['id'] === (cancel?.['params'] as Json)['requestId']);
      assert.ok(cancelled, '$/cancel_request names the id of the request it cancels');
    });

    it('each response validates against the <X>Response $def of the request (or Error), with its id', () => {
      const responses = agent.sent.filter((m) => isObject(m) && m['method'] === undefined) as Json[];
      const answered = new Set<string>();
      let errors = 0;
      for (const response of responses) {
        const request = agent.issued.get(response['id'] as string | number);
        assert.ok(request, `a response to an id the agent never used: ${JSON.stringify(response['id'])}`);
        const method = request['method'] as string;
        assert.notEqual('result' in response, 'error' in response, `${method}: exactly one of result and error`);
        if ('error' in response) {
          errors++;
          assertValid('Error', response['error'], `the error answer to ${method}`);
        } else {
          assert.equal(METHODS.get(method)?.side, 'client', `${method} is not a client method`);
          assertValid(defOf(method, 'response'), response['result'], `the result of ${method}`);
          answered.add(method);
        }
      }
      assert.equal(responses.length, agent.issued.size, 'every agent request was answered once');
      const expected = [...METHODS].filter(([, d]) => d.side === 'client' && d.response).map(([m]) => m);
      assert.deepEqual(
        expected.filter((m) => !answered.has(m)),
        [],
        'client methods never answered with a result',
      );
      assert.ok(errors >= 5, `${errors} error answers`);
    });

    it('answers with the exact ids the agent used (0 and strings too) and the codes a user depends on', () => {
      const byId = (id: string | number) => agent.sent.find((m) => isObject(m) && m['method'] === undefined && m['id'] === id) as Json | undefined;
      assert.deepEqual(byId(0)?.['result'], { outcome: { outcome: 'selected', optionId: 'allow' } });
      assert.deepEqual(byId('5b0e1c2a-7d4f-4e8b-9a61-2f3c4d5e6f70')?.['result'], {});
      const code = (id: string | number) => (byId(id)?.['error'] as Json | undefined)?.['code'];
      assert.equal(code('missing-file'), ErrorCodes.ResourceNotFound);
      assert.equal(code('unknown-method'), ErrorCodes.MethodNotFound);
      assert.equal(code('bad-params'), ErrorCodes.InvalidParams);
      assert.equal(code('agent-cancels'), ErrorCodes.RequestCancelled);
      assert.equal(code('handler-throws'), ErrorCodes.InternalError);
    });
  });

  describe('c. the zod generator', () => {
    it('emits every $def except the JSON-RPC envelopes', () => {
      const emitted = Object.keys(S.definitions).sort();
      const expected = Object.keys(defs)
        .filter((n) => !ENVELOPES.includes(n))
        .sort();
      assert.deepEqual(emitted, expected);
      for (const name of ENVELOPES) assert.ok(defs[name], `${name} is still in the schema`);
      for (const [name, zod] of Object.entries(S.definitions)) assert.equal((S as unknown as Record<string, unknown>)[name], zod, name);
    });

    it('the committed schema.gen.ts is up to date (gen-schema.mjs --check exits 0)', function () {
      this.timeout(30_000);
      const r = spawnSync(process.execPath, [join(repoRoot(), 'scripts', 'gen-schema.mjs'), '--check'], { cwd: repoRoot(), encoding: 'utf8' });
      assert.equal(r.error, undefined);
      assert.equal(r.status, 0, `gen-schema.mjs --check: ${r.stderr}`);
    });
  });

  describe('d. the methods table', () => {
    const tables = [
      { side: 'agent', requests: AgentMethods, notifications: AgentNotifications },
      { side: 'client', requests: ClientMethods, notifications: ClientNotifications },
    ] as const;
    const zodOf = (name: string | undefined) => (name ? (S.definitions as Record<string, z.ZodType>)[name] : undefined);

    for (const { side, requests, notifications } of tables) {
      it(`every x-side ${side} method of the schema is in the table with the right $defs, and nothing else is`, () => {
        const schemaMethods = [...METHODS].filter(([, d]) => d.side === side);
        const requestDefs = Object.values(requests as Record<string, { method: string; params: z.ZodType; result: z.ZodType }>);
        const notificationDefs = Object.values(notifications as Record<string, { method: string; params: z.ZodType }>);
        for (const [method, d] of schemaMethods) {
          if (d.request) {
            const def = requestDefs.find((r) => r.method === method);
            assert.ok(def, `${method} is missing`);
            assert.equal(def.params, zodOf(d.request), `${method} params should be S.${d.request}`);
            assert.equal(def.result, zodOf(d.response), `${method} result should be S.${d.response}`);
          } else {
            const def = notificationDefs.find((n) => n.method === method);
            assert.ok(def, `notification ${method} is missing`);
            assert.equal(def.params, zodOf(d.notification), `${method} params should be S.${d.notification}`);
          }
        }
        const known = new Set(schemaMethods.map(([m]) => m));
        for (const def of [...requestDefs, ...notificationDefs]) assert.ok(known.has(def.method), `${def.method} is not an x-side ${side} method`);
        assert.equal(requestDefs.length + notificationDefs.length, schemaMethods.length);
      });
    }

    it('the protocol-level $/cancel_request uses S.CancelRequestNotification', () => {
      assert.deepEqual(METHODS.get('$/cancel_request'), { side: 'protocol', notification: 'CancelRequestNotification' });
      assert.equal(CancelRequest.method, '$/cancel_request');
      assert.equal(CancelRequest.params, S.CancelRequestNotification);
    });

    it('every gated feature is a real AgentCapabilities field, and every optional agent method is gated on one', () => {
      const gated = Object.values(AgentMethods).flatMap((def) => ('feature' in def ? [def.feature] : []));
      assert.deepEqual(gated.sort(), ['closeSession', 'deleteSession', 'listSessions', 'loadSession', 'logout', 'resumeSession']);
      for (const feature of AGENT_FEATURES) {
        const def = { method: feature, capability: capabilityName(feature) };
        // Walk the capability path through the JSON schema.
        let node: Json | undefined = defs['AgentCapabilities'];
        const caps: Json = {};
        let cursor = caps;
        const path = def.capability.split('.');
        path.forEach((key, i) => {
          const prop = (node?.['properties'] as Json | undefined)?.[key] as Json | undefined;
          assert.ok(prop, `${def.method}: AgentCapabilities has no ${path.slice(0, i + 1).join('.')}`);
          const ref = JSON.stringify(prop).match(/#\/\$defs\/(\w+)/)?.[1];
          node = ref ? defs[ref] : undefined;
          const leaf = i === path.length - 1;
          cursor[key] = leaf ? (ref ? {} : true) : {};
          cursor = cursor[key] as Json;
        });
        const parsed = parseTolerant(S.AgentCapabilities, caps);
        assert.ok(parsed.ok && parsed.warnings.length === 0, `${JSON.stringify(caps)} is valid AgentCapabilities`);
        assert.equal(supports({}, feature), false, `${def.method} is not advertised by empty capabilities`);
        assert.equal(supports(parsed.value, feature), true, `${def.method} is advertised by ${JSON.stringify(caps)}`);
      }
    });
  });
});

describe('e. what the client handles of the stable schema', () => {
  const propertiesOf = (def: string) => Object.keys((defs[def]?.['properties'] ?? {}) as Json).filter((k) => k !== '_meta');

  it('advertises every client capability and every session capability, and what it advertises validates', () => {
    const advertised: S.ClientCapabilities = {
      ...clientCapabilities({ terminalAuth: true }),
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    };
    assertValid('ClientCapabilities', advertised, 'the client capabilities');
    assert.deepEqual(
      propertiesOf('ClientCapabilities').filter((k) => !(k in advertised)),
      [],
      'client capabilities of the schema that the client does not advertise',
    );
    assert.deepEqual(
      propertiesOf('ClientSessionCapabilities').filter((k) => !(k in (advertised.session ?? {}))),
      [],
      'session capabilities of the schema that the client does not advertise',
    );
    assert.deepEqual(
      propertiesOf('ElicitationCapabilities').filter((k) => !(k in (advertised.elicitation ?? {}))),
      [],
      'elicitation modes of the schema that the client does not advertise',
    );
  });

  /** One valid update of each kind; the test below checks that this covers the schema's every kind. */
  const SAMPLES: Record<string, Json> = {
    user_message_chunk: { content: { type: 'text', text: 'hi' } },
    agent_message_chunk: { content: { type: 'text', text: 'hello' } },
    agent_thought_chunk: { content: { type: 'text', text: 'hmm' } },
    tool_call: { toolCallId: 't1', title: 'Read a.ts' },
    tool_call_update: { toolCallId: 't1', status: 'completed' },
    plan: { entries: [{ content: 'step', priority: 'high', status: 'pending' }] },
    available_commands_update: { availableCommands: [{ name: 'init', description: 'Set up' }] },
    current_mode_update: { currentModeId: 'plan' },
    config_option_update: { configOptions: [] },
    session_info_update: { title: 'A title' },
    usage_update: { used: 10, size: 100 },
    notice: { title: 'Heads up', severity: 'info' },
    compaction_update: { compactionId: 'c1', status: 'in_progress' },
    compaction_summary_chunk: { compactionId: 'c2', content: { type: 'text', text: 'summary' } },
  };

  it('changes the session model on every session update kind of the schema', () => {
    const kinds = ((defs['SessionUpdate']?.['oneOf'] ?? []) as Json[]).map((o) => ((o['properties'] as Json)['sessionUpdate'] as Json)['const']);
    assert.deepEqual([...kinds].sort(), Object.keys(SAMPLES).sort(), "the samples cover exactly the schema's kinds");
    const model = new SessionModel('sess-1');
    try {
      for (const kind of kinds as string[]) {
        const params = { sessionId: 'sess-1', update: { sessionUpdate: kind, ...SAMPLES[kind] } };
        assertValid('SessionNotification', params, `the ${kind} sample`);
        const read = readSessionUpdate(params);
        assert.ok(read.ok && read.warnings.length === 0, `${kind} is read without a warning`);
        let changed = 0;
        const listening = model.onDidChange(() => changed++);
        model.apply(read.value.update);
        listening.dispose();
        assert.ok(changed > 0, `${kind} changed nothing the chat shows`);
      }
    } finally {
      model.dispose();
    }
  });
});

// ---- helpers for (a) --------------------------------------------------------------------------------------------

/** session/update is a notification, session/request_permission a request. */
function transcriptDef(line: TranscriptLine): string {
  return defOf(line.method, line.method === 'session/update' ? 'notification' : 'request');
}

type Read = { ok: true; value: unknown; warnings: readonly string[] } | { ok: false; skipped?: string; reason: string; warnings: readonly string[] };

function readLine(line: TranscriptLine): Read {
  if (line.method === 'session/update') return readSessionUpdate(line.params);
  const r = parseTolerant(S.RequestPermissionRequest, line.params);
  return r.ok ? r : { ok: false, reason: r.error, warnings: r.warnings };
}

function checkLegacyMapping(line: TranscriptLine, value: Json, where: string): void {
  const before = line.params['update'] as Json;
  const after = value['update'] as Json;
  assert.ok(!('id' in after) || after['id'] === undefined || before['toolCallId'] !== undefined, `${where}: id left unmapped`);
  if (before['toolCallId'] === undefined) assert.equal(after['toolCallId'], before['id'], `${where}: id → toolCallId`);
  if (before['status'] === 'success') assert.equal(after['status'], 'completed', `${where}: success → completed`);
  if (before['output'] !== undefined && before['rawOutput'] === undefined)
    assert.deepEqual(after['rawOutput'], before['output'], `${where}: output → rawOutput`);
  if (before['arguments'] !== undefined && before['rawInput'] === undefined)
    assert.deepEqual(after['rawInput'], before['arguments'], `${where}: arguments → rawInput`);
  if (before['sessionUpdate'] === 'tool_call' && before['title'] === undefined)
    assert.equal(after['title'], before['name'], `${where}: name → title`);
}

// ---- (b): an in-memory agent that records and answers what the client writes ---------------------------------

interface Pending {
  resolve(message: Json): void;
}

class FakeAgent {
  /** Every message the client wrote, parsed, in order. */
  readonly sent: unknown[] = [];
  /** Requests the client sent to the agent. */
  readonly requestsSeen: Json[] = [];
  /** Requests this agent sent to the client, by id. */
  readonly issued = new Map<string | number, Json>();
  private readonly waiting = new Map<string | number, Pending>();
  private readonly watchers: { match: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  private buffer = '';
  readonly toAgent = new PassThrough();
  readonly toClient = new PassThrough();
  /** Requests answered by a function of the request; a request with no answer stays pending. */
  answer: (request: Json) => { result?: unknown; error?: Json } | undefined = () => undefined;

  constructor() {
    this.toAgent.setEncoding('utf8');
    this.toAgent.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.received(JSON.parse(line) as unknown);
      }
    });
  }

  private received(message: unknown): void {
    this.sent.push(message);
    if (!isObject(message)) return;
    for (const w of [...this.watchers]) {
      if (w.match(message)) {
        this.watchers.splice(this.watchers.indexOf(w), 1);
        w.resolve(message);
      }
    }
    if (typeof message['method'] === 'string' && message['id'] !== undefined) {
      this.requestsSeen.push(message);
      const reply = this.answer(message);
      if (reply) this.reply(message['id'] as number | string, reply);
    } else if (message['method'] === undefined) {
      const id = message['id'] as string | number;
      this.waiting.get(id)?.resolve(message);
      this.waiting.delete(id);
    }
  }

  reply(id: number | string, reply: { result?: unknown; error?: Json }): void {
    this.send({ jsonrpc: '2.0', id, ...reply });
  }

  send(message: Json): void {
    this.toClient.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request to the client and resolves with its response. */
  request(id: number | string, method: string, params: unknown): Promise<Json> {
    const message = { jsonrpc: '2.0', id, method, params };
    this.issued.set(id, message);
    const response = new Promise<Json>((resolve) => this.waiting.set(id, { resolve }));
    this.send(message);
    return bounded(response, `the answer to ${method} (${String(id)})`);
  }

  /** Resolves with the next message from the client that matches. */
  next(match: (m: Json) => boolean, what: string): Promise<Json> {
    return bounded(new Promise<Json>((resolve) => this.watchers.push({ match, resolve })), what);
  }

  dispose(): void {
    this.toAgent.destroy();
    this.toClient.destroy();
  }
}

/** Rejects when `promise` takes longer than `ms`: a bound on a wait for an event, never a sleep. */
function bounded<T>(promise: Promise<T>, what: string, ms = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const SID = 'sess-1';

async function runClientScenario(): Promise<FakeAgent> {
  const agent = new FakeAgent();
  let started: () => void = () => {};
  const handlerStarted = new Promise<void>((resolve) => (started = resolve));
  const aborted = (signal: AbortSignal) => {
    started();
    return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  const handler: ClientHandler = {
    requestPermission: async (params, signal) => {
      if (params.toolCall.toolCallId === 'call-wait') return aborted(signal);
      if (params.toolCall.toolCallId === 'call-cancelled') return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId: 'allow' } };
    },
    readTextFile: async (params) => {
      if (params.path.endsWith('missing.ts')) throw new AcpError(ErrorCodes.ResourceNotFound, `no such file: ${params.path}`, { path: params.path });
      if (params.path.endsWith('boom.ts')) throw new Error('disk on fire');
      return { content: 'export const x = 1;\n' };
    },
    writeTextFile: async () => ({}),
    createTerminal: async () => ({ terminalId: 'term-1' }),
    terminalOutput: async () => ({ output: 'hi\n', truncated: false, exitStatus: { exitCode: 0, signal: null } }),
    waitForTerminalExit: async () => ({ exitCode: 0, signal: null }),
    killTerminal: async () => ({}),
    releaseTerminal: async () => ({}),
    createElicitation: async () => ({ action: 'accept', content: { branch: 'main', push: true } }),
    sessionUpdate: () => {},
  };
  const { reader, writer } = ndjsonTransport(agent.toClient, agent.toAgent, { coalesce: ['session/update'] });
  const conn = new AcpClientConnection(reader, writer, handler, {
    clientInfo: { name: 'acp-client-tests', title: 'ACP Client tests', version: '0.0.0' },
    capabilities: { auth: { terminal: true }, _meta: { terminal_output: true } },
  });

  const everything = {
    loadSession: true,
    promptCapabilities: { image: true, audio: true, embeddedContext: true },
    mcpCapabilities: { http: true, sse: true },
    sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
    auth: { logout: {} },
  };
  const modes = {
    currentModeId: 'default',
    availableModes: [
      { id: 'default', name: 'Default' },
      { id: 'plan', name: 'Plan' },
    ],
  };
  const configOptions = [
    { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fast', options: [{ value: 'fast', name: 'Fast' }] },
  ];
  agent.answer = (request) => {
    const params = (request['params'] ?? {}) as Json;
    switch (request['method']) {
      case 'initialize':
        return {
          result: {
            protocolVersion: 1,
            agentCapabilities: everything,
            authMethods: [{ id: 'api-key', name: 'API key' }],
            agentInfo: { name: 'fake', version: '1.0.0' },
          },
        };
      case 'authenticate':
      case 'logout':
      case 'session/close':
      case 'session/delete':
      case 'session/set_mode':
        return { result: {} };
      case 'session/new':
        return { result: { sessionId: SID, modes, configOptions } };
      case 'session/load':
      case 'session/resume':
        return { result: { modes, configOptions } };
      case 'session/list':
        if (params['cursor'] === 'held') return undefined; // answered by the test, after $/cancel_request
        return { result: { sessions: [{ sessionId: SID, cwd: '/work', title: 'Earlier' }], nextCursor: null } };
      case 'session/set_config_option':
        return { result: { configOptions } };
      case 'session/prompt': {
        const first = (params['prompt'] as Json[])[0];
        if (first?.['text'] === 'hold on') return undefined; // answered by the test, after session/cancel
        return { result: { stopReason: 'end_turn' } };
      }
      default:
        return { error: { code: ErrorCodes.MethodNotFound, message: `unknown ${String(request['method'])}` } };
    }
  };

  // ---- client → agent
  await conn.initialize();
  await conn.authenticate({ methodId: 'api-key' });
  await conn.logout();
  const mcpServers: S.McpServer[] = [
    { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/work'], env: [{ name: 'LOG', value: 'debug' }] },
    { type: 'http', name: 'search', url: 'https://mcp.example.com/search', headers: [{ name: 'Authorization', value: 'Bearer t0ken' }] },
  ];
  await conn.newSession({ cwd: '/work', mcpServers, additionalDirectories: ['/work/lib'] });
  await conn.loadSession({ sessionId: SID, cwd: '/work', mcpServers: [] });
  await conn.listSessions();
  await conn.listSessions({ cwd: '/work', cursor: 'page-2' });
  await conn.resumeSession({ sessionId: SID, cwd: '/work' });
  await conn.setMode({ sessionId: SID, modeId: 'plan' });
  await conn.setConfigOption({ sessionId: SID, configId: 'model', value: 'fast' });
  await conn.setConfigOption({ sessionId: SID, configId: 'brave', type: 'boolean', value: true });
  await conn.prompt({
    sessionId: SID,
    prompt: [
      { type: 'text', text: 'Explain this:\nline two' },
      { type: 'resource_link', uri: 'file:///work/src/a.ts', name: 'a.ts', mimeType: 'text/typescript' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///work/src/b.ts', mimeType: 'text/typescript', text: 'export const b = 2;\n' } },
      { type: 'resource', resource: { uri: 'file:///work/logo.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' } },
    ],
  });

  // session/cancel: the prompt is held until the agent sees the cancel, then answers "cancelled".
  const promptSeen = agent.next(
    (m) => m['method'] === 'session/prompt' && ((m['params'] as Json)['prompt'] as Json[])[0]?.['text'] === 'hold on',
    'the held prompt',
  );
  const held = conn.prompt({ sessionId: SID, prompt: [{ type: 'text', text: 'hold on' }] });
  const promptRequest = await promptSeen;
  const cancelSeen = agent.next((m) => m['method'] === 'session/cancel', 'session/cancel');
  await conn.cancel({ sessionId: SID });
  await cancelSeen;
  agent.reply(promptRequest['id'] as number, { result: { stopReason: 'cancelled' } });
  assert.equal((await held).stopReason, 'cancelled');

  // $/cancel_request: the client aborts a request; the agent answers it with -32800.
  const listSeen = agent.next((m) => m['method'] === 'session/list' && (m['params'] as Json)['cursor'] === 'held', 'the held session/list');
  const abort = new AbortController();
  const list = conn.listSessions({ cursor: 'held' }, abort.signal);
  const listRequest = await listSeen;
  const cancelRequestSeen = agent.next((m) => m['method'] === '$/cancel_request', '$/cancel_request');
  abort.abort();
  await cancelRequestSeen;
  agent.reply(listRequest['id'] as number, { error: { code: ErrorCodes.RequestCancelled, message: 'cancelled' } });
  await assert.rejects(list, (e: unknown) => e instanceof AcpError && e.isCancelled);

  await conn.closeSession({ sessionId: SID });
  await conn.deleteSession({ sessionId: SID });

  // ---- agent → client
  const toolCall = { toolCallId: 'call-1', title: 'Edit a.ts', kind: 'edit', status: 'pending' };
  const options = [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ];
  await agent.request(0, 'session/request_permission', { sessionId: SID, toolCall, options });
  await agent.request(1, 'session/request_permission', { sessionId: SID, toolCall: { ...toolCall, toolCallId: 'call-cancelled' }, options });
  await agent.request(2, 'fs/read_text_file', { sessionId: SID, path: '/work/src/a.ts', line: 1, limit: 20 });
  await agent.request('5b0e1c2a-7d4f-4e8b-9a61-2f3c4d5e6f70', 'fs/write_text_file', { sessionId: SID, path: '/work/src/new.ts', content: 'x\n' });
  await agent.request(3, 'terminal/create', { sessionId: SID, command: 'echo hi' });
  await agent.request(4, 'terminal/output', { sessionId: SID, terminalId: 'term-1' });
  await agent.request(5, 'terminal/wait_for_exit', { sessionId: SID, terminalId: 'term-1' });
  await agent.request(6, 'terminal/kill', { sessionId: SID, terminalId: 'term-1' });
  await agent.request(7, 'terminal/release', { sessionId: SID, terminalId: 'term-1' });
  await agent.request(8, 'elicitation/create', {
    sessionId: SID,
    mode: 'form',
    message: 'Which branch?',
    requestedSchema: { type: 'object', properties: { branch: { type: 'string', title: 'Branch' }, push: { type: 'boolean' } }, required: ['branch'] },
  });
  // Error answers.
  await agent.request('missing-file', 'fs/read_text_file', { sessionId: SID, path: '/work/missing.ts' });
  await agent.request('handler-throws', 'fs/read_text_file', { sessionId: SID, path: '/work/boom.ts' });
  await agent.request('unknown-method', '_vendor/unknown', { x: 1 });
  await agent.request('bad-params', 'fs/write_text_file', { sessionId: SID, path: 42 });
  const waiting = agent.request('agent-cancels', 'session/request_permission', { sessionId: SID, toolCall: { toolCallId: 'call-wait' }, options });
  await bounded(handlerStarted, 'the permission handler');
  agent.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'agent-cancels' } });
  await waiting;

  conn.dispose();
  return agent;
}
