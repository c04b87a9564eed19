import * as assert from 'node:assert/strict';
import { AgentStartFailure } from '../../../src/acp/startFailure';
import {
  AcpError,
  AgentExitError,
  AgentStartError,
  CommandNotFoundError,
  ConnectionClosedError,
  NotSupportedError,
  ProtocolVersionError,
  failureOf,
} from '../../../src/acp/errors';

describe('failures travel as facts', () => {
  it('says what happened in data, for the host to word', () => {
    assert.deepEqual(failureOf(new AgentExitError(3, null, ['trying', 'giving up'])), {
      kind: 'exited',
      code: 3,
      signal: null,
      lastLine: 'giving up',
    });
    assert.deepEqual(failureOf(new CommandNotFoundError('gemini')), { kind: 'commandNotFound', command: 'gemini' });
    assert.deepEqual(failureOf(new AgentStartError('missingFolder', '/gone')), { kind: 'startFailed', reason: 'missingFolder', detail: '/gone' });
    assert.deepEqual(failureOf(new ProtocolVersionError(2, [1])), { kind: 'protocolVersion', agentVersion: '2', supported: [1] });
    assert.deepEqual(failureOf(new NotSupportedError({ what: 'content', content: 'image' })), {
      kind: 'notSupported',
      what: 'content',
      content: 'image',
    });
    assert.deepEqual(failureOf(new AcpError(-32000, 'Authentication required')), {
      kind: 'agent',
      code: -32000,
      message: 'Authentication required',
    });
    assert.deepEqual(failureOf('plain'), { kind: 'other', message: 'plain' });
  });

  it('keeps the cause of a closed connection and of a start that failed', () => {
    assert.deepEqual(failureOf(new ConnectionClosedError(new AgentExitError(null, 'SIGKILL', []))), {
      kind: 'connectionClosed',
      cause: { kind: 'exited', code: null, signal: 'SIGKILL', lastLine: undefined },
    });
    const start = new AgentStartFailure({ kind: 'initializeTimeout', seconds: 30 }, ['…'], new Error('aborted'));
    assert.deepEqual(failureOf(start), { kind: 'initializeTimeout', seconds: 30 });
    assert.match(start.message, /did not answer initialize within 30 s/, 'the log keeps an English line');
  });

  it('keeps an English message for the log beside the fact', () => {
    assert.match(
      new NotSupportedError({ what: 'method', method: 'session/fork', capability: 'sessionCapabilities.fork' }).message,
      /does not support session\/fork/,
    );
    assert.match(new AgentStartError('missingFolder', '/gone').message, /working folder \/gone does not exist/);
  });
});
