// What a session opens with: instructions go as systemPrompt (append) only to an agent that advertises it, and the
// session says when they were not taken; MCP servers and folders as before.
import * as assert from 'node:assert/strict';
import { AgentCapabilities } from '../../../src/acp/capabilities';
import { silentLogger } from '../../../src/acp/log';
import { sessionSetup } from '../../../src/acp/sessionSetup';

describe('session setup', () => {
  const taking = new AgentCapabilities({ sessionCapabilities: { systemPrompt: {} } as never });
  const plain = new AgentCapabilities({});

  it('sends instructions as systemPrompt in append mode to an agent that takes them', () => {
    const setup = sessionSetup({ instructions: 'Be brief.' }, taking, silentLogger);
    assert.deepEqual(setup.params.systemPrompt, { mode: 'append', content: [{ type: 'text', text: 'Be brief.' }] });
    assert.equal(setup.instructionsNotTaken, false);
  });

  it('leaves them out, and says so, for an agent that does not; blank instructions are none', () => {
    const setup = sessionSetup({ instructions: 'Be brief.' }, plain, silentLogger);
    assert.equal(setup.params.systemPrompt, undefined);
    assert.equal(setup.instructionsNotTaken, true);
    assert.equal(sessionSetup({ instructions: '  \n' }, plain, silentLogger).instructionsNotTaken, false);
    assert.equal(sessionSetup({ instructions: '  \n' }, taking, silentLogger).params.systemPrompt, undefined);
  });
});
