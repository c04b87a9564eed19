import * as assert from 'node:assert/strict';
import { MAX_LINK_PROMPT, parseChatLink } from '../../../src/chats/chatLink';

// The queries are as VS Code hands them to the extension: percent-decoded.
describe('chat links', () => {
  it('reads the agent and the prompt of a /chat link, the prompt running to the end', () => {
    assert.deepEqual(parseChatLink('/chat', 'agent=Claude Code&prompt=Fix the & bug\nplease, a+b = c'), {
      agent: 'Claude Code',
      prompt: 'Fix the & bug\nplease, a+b = c',
      cut: false,
    });
    assert.deepEqual(parseChatLink('/chat', 'prompt=say &agent= then stop&agent=Gemini'), {
      agent: 'Gemini',
      prompt: 'say &agent= then stop',
      cut: false,
    });
    assert.deepEqual(parseChatLink('/chat', 'agent=Codex&prompt=x&agent=Other'), { agent: 'Codex', prompt: 'x&agent=Other', cut: false });
    assert.deepEqual(parseChatLink('/chat/', ''), { agent: undefined, prompt: '', cut: false });
    assert.deepEqual(parseChatLink('/chat', 'agent=  &prompt=hi'), { agent: undefined, prompt: 'hi', cut: false });
    assert.deepEqual(parseChatLink('/chat', 'agent=Solo'), { agent: 'Solo', prompt: '', cut: false });
  });

  it('bounds the prompt, never splitting a character, and refuses other paths and long names', () => {
    const long = parseChatLink('/chat', `prompt=${'a'.repeat(MAX_LINK_PROMPT - 1)}😀tail`);
    assert.ok(!('error' in long) && long.cut && long.prompt.length === MAX_LINK_PROMPT - 1);
    assert.ok('error' in parseChatLink('/send', 'prompt=x'));
    assert.deepEqual(parseChatLink('/chat', 'prompt=\n\n\n  hidden below'), { agent: undefined, prompt: 'hidden below', cut: false });
    assert.ok('error' in parseChatLink(`/${'/'.repeat(100_000)}x`, ''), 'a long path of slashes is refused at once');
    assert.deepEqual(parseChatLink(`/chat${'/'.repeat(100_000)}`, 'prompt=ok'), { agent: undefined, prompt: 'ok', cut: false });
    assert.ok('error' in parseChatLink('/chat', `agent=${'n'.repeat(201)}`));
  });
});
