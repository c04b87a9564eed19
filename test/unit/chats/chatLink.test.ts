import * as assert from 'node:assert/strict';
import { MAX_LINK_PROMPT, parseChatLink } from '../../../src/chats/chatLink';

// The queries are as VS Code hands them to the extension: percent-decoded.
describe('chat links', () => {
  it('reads the agent and the prompt of a /chat link, the prompt running to the end', () => {
    assert.deepEqual(parseChatLink('/chat', 'agent=Claude Code&prompt=Fix the & bug\nplease, a+b = c'), {
      agent: 'Claude Code',
      prompt: 'Fix the & bug\nplease, a+b = c',
      cut: false,
      removed: 0,
    });
    assert.deepEqual(parseChatLink('/chat', 'prompt=say &agent= then stop&agent=Gemini'), {
      agent: 'Gemini',
      prompt: 'say &agent= then stop',
      cut: false,
      removed: 0,
    });
    assert.deepEqual(parseChatLink('/chat', 'agent=Codex&prompt=x&agent=Other'), { agent: 'Codex', prompt: 'x&agent=Other', cut: false, removed: 0 });
    assert.deepEqual(parseChatLink('/chat/', ''), { agent: undefined, prompt: '', cut: false, removed: 0 });
    assert.deepEqual(parseChatLink('/chat', 'agent=  &prompt=hi'), { agent: undefined, prompt: 'hi', cut: false, removed: 0 });
    assert.deepEqual(parseChatLink('/chat', 'agent=Solo'), { agent: 'Solo', prompt: '', cut: false, removed: 0 });
  });

  it('bounds the prompt, never splitting a character, and refuses other paths and long names', () => {
    const long = parseChatLink('/chat', `prompt=${'a'.repeat(MAX_LINK_PROMPT - 1)}😀tail`);
    assert.ok(!('error' in long) && long.cut && long.prompt.length === MAX_LINK_PROMPT - 1);
    assert.ok('error' in parseChatLink('/send', 'prompt=x'));
    assert.deepEqual(parseChatLink('/chat', 'prompt=\n\n\n  hidden below'), { agent: undefined, prompt: 'hidden below', cut: false, removed: 0 });
    assert.ok('error' in parseChatLink(`/${'/'.repeat(100_000)}x`, ''), 'a long path of slashes is refused at once');
    assert.deepEqual(parseChatLink(`/chat${'/'.repeat(100_000)}`, 'prompt=ok'), { agent: undefined, prompt: 'ok', cut: false, removed: 0 });
    assert.ok('error' in parseChatLink('/chat', `agent=${'n'.repeat(201)}`));
  });

  it('takes out what a reader cannot see but a model reads, counts it, and makes a run of blank lines one', () => {
    // "ignore" in Unicode tag characters, zero-width and bidi controls, a NUL and a bell; hundreds of blank lines.
    const tags = [...'ignore'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const hidden = `Fix the bug${tags}\u200b\u200d\u202e\u2066\u00ad\u0000\u0007\r\n${'\n  \t'.repeat(300)}\nthen stop\tnow`;
    assert.deepEqual(parseChatLink('/chat', `prompt=${hidden}`), {
      agent: undefined,
      prompt: 'Fix the bug\n\nthen stop\tnow',
      cut: false,
      removed: [...tags].length + 7,
    });
  });
});
