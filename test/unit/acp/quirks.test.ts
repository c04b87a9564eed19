// Agent quirks come from what the agent says about itself in `initialize`, so a hand-configured Gemini CLI gets the
// same treatment as the preset; an explicit true or false in its `acp.agents` entry wins.
import * as assert from 'node:assert/strict';
import { activeQuirks, agentQuirks, infoError, levelSettings, modeName, NO_QUIRKS } from '../../../src/acp/quirks';
import { SessionModel } from '../../../src/acp/sessionModel';
import { parseAgents } from '../../../src/settings/agentConfig';

const GEMINI = { name: 'gemini-cli', title: 'Gemini CLI', version: '0.61.0' };

describe('agent quirks (keyed by agentInfo)', () => {
  it('reads missing files as empty for Gemini CLI, by its agentInfo name alone', () => {
    assert.equal(agentQuirks(GEMINI).readMissingAsEmpty, true);
    assert.equal(agentQuirks({ name: 'gemini-cli', version: '1.0.0' }).readMissingAsEmpty, true, 'whatever its version or title');
    assert.deepEqual(activeQuirks(agentQuirks(GEMINI)), ['readMissingAsEmpty']);
  });

  it('tells other agents the truth (-32002), and agents that sent no agentInfo too', () => {
    for (const info of [
      { name: 'claude-agent-acp', title: 'Claude Code', version: '0.9.1' },
      { name: 'codex-acp', version: '0.3.0' },
      { name: 'Gemini CLI', version: '0.61.0' }, // a title is not a name
      { name: '__proto__', version: '1' },
      { name: 'constructor', version: '1' },
      null,
      undefined,
    ]) {
      assert.deepEqual(agentQuirks(info), NO_QUIRKS, JSON.stringify(info));
    }
    assert.deepEqual(activeQuirks(agentQuirks(undefined)), []);
  });

  it('lets the agent entry override the quirk either way; an absent setting leaves it to agentInfo', () => {
    assert.equal(agentQuirks(GEMINI, { readMissingAsEmpty: false }).readMissingAsEmpty, false);
    assert.equal(agentQuirks({ name: 'my-agent', version: '1' }, { readMissingAsEmpty: true }).readMissingAsEmpty, true);
    assert.equal(agentQuirks(undefined, { readMissingAsEmpty: true }).readMissingAsEmpty, true, 'before initialize too');
    assert.equal(agentQuirks(GEMINI, { readMissingAsEmpty: undefined }).readMissingAsEmpty, true);
  });

  it('reads the override from acp.agents only when the entry sets it', () => {
    const { agents } = parseAgents({
      'Gemini CLI': { command: '/opt/gemini/bin/gemini', args: ['--acp'] },
      'Gemini, told no': { command: 'gemini', args: ['--acp'], readMissingAsEmpty: false },
      Other: { command: 'other', readMissingAsEmpty: true },
    });
    const quirks = agents.map((a) =>
      agentQuirks(a.name === 'Other' ? { name: 'other', version: '1' } : GEMINI, { readMissingAsEmpty: a.readMissingAsEmpty }),
    );
    assert.deepEqual(
      quirks.map((q) => q.readMissingAsEmpty),
      [true, false, true],
    );
    assert.equal('readMissingAsEmpty' in agents[0]!, false, 'a hand-written entry with only command and args sets nothing');
  });
});

describe('the agents’ own settings for a permission level (keyed by agentInfo)', () => {
  it('knows claude-agent-acp’s modes, both codex-acps’, Copilot CLI’s allow_all, and nothing for others', () => {
    for (const name of ['@zed-industries/claude-agent-acp', '@agentclientprotocol/claude-agent-acp']) {
      const claude = levelSettings({ name, version: '0.101.0' });
      assert.ok(claude && 'forLevel' in claude);
      assert.equal(claude.asking, 'default');
      assert.deepEqual(claude.forLevel, { autoApproveEdits: 'acceptEdits', agentDecides: 'auto', allowAll: 'bypassPermissions' });
      assert.deepEqual(claude.kept, ['plan']);
    }
    const codex = levelSettings({ name: '@agentclientprotocol/codex-acp', version: '2.6.0' });
    assert.ok(codex && 'forLevel' in codex);
    assert.equal(codex.asking, 'read-only');
    assert.deepEqual(codex.forLevel, { agentDecides: 'agent', allowAll: 'agent-full-access' });
    assert.equal(codex.approves['workspace-write'], 'agentDecides', 'workspace-write runs commands without asking');
    const zedCodex = levelSettings({ name: 'codex-acp', version: '0.9.0' });
    assert.ok(zedCodex && 'forLevel' in zedCodex);
    assert.deepEqual(zedCodex.forLevel, { agentDecides: 'auto', allowAll: 'full-access' });
    assert.deepEqual(levelSettings({ name: 'Copilot', version: '1.0.102' }), { option: 'allow_all', on: ['allowAll'] });
    assert.equal(levelSettings({ name: 'gemini-cli', version: '0.61.0' }), undefined);
    assert.equal(levelSettings(undefined), undefined);
  });
});

describe('Copilot CLI’s exit line in its command output', () => {
  const shell = (text: string) => ({
    sessionUpdate: 'tool_call_update' as const,
    toolCallId: 'bash-1',
    status: 'completed' as const,
    content: [{ type: 'content' as const, content: { type: 'text' as const, text } }],
  });

  it('is the card’s exit code, taken out of the text, for an agent that says it is Copilot', () => {
    assert.equal(agentQuirks({ name: 'Copilot', version: '1.0.102' }).shellExitInText, true);
    assert.equal(agentQuirks({ name: 'gemini-cli', version: '0.61.0' }).shellExitInText, false);
    const model = new SessionModel('s');
    model.quirks = { ...NO_QUIRKS, shellExitInText: true };
    model.apply(shell('FAIL src/date.test.ts\n<shellId: 3 completed with exit code 1>\n'));
    const call = model.toolCall('bash-1');
    assert.equal(call?.exitCode, 1);
    assert.deepEqual(call?.content, [{ type: 'content', content: { type: 'text', text: 'FAIL src/date.test.ts' } }]);
    model.apply(shell('ok\n<shellId: 4 completed with exit code 0>'));
    assert.equal(model.toolCall('bash-1')?.exitCode, 0);
    model.dispose();
  });

  it('is left in the text for every other agent, and when it is not the text’s end', () => {
    const other = new SessionModel('s');
    other.apply(shell('ok\n<shellId: 3 completed with exit code 0>'));
    assert.equal(other.toolCall('bash-1')?.exitCode, undefined);
    other.dispose();
    const copilot = new SessionModel('s');
    copilot.quirks = { ...NO_QUIRKS, shellExitInText: true };
    copilot.apply(shell('<shellId: 3 completed with exit code 0> and then more'));
    const call = copilot.toolCall('bash-1');
    assert.equal(call?.exitCode, undefined);
    assert.equal(
      call?.content[0]?.type === 'content' && call.content[0].content.type === 'text' && call.content[0].content.text,
      '<shellId: 3 completed with exit code 0> and then more',
    );
    copilot.dispose();
  });
});

describe("Copilot CLI's notices and mode ids", () => {
  const say = (text: string) => ({ sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text } });

  it('shows an "Info: <path>" chunk as a notice, not as part of the answer, for an agent that says it is Copilot', () => {
    const quirks = agentQuirks({ name: 'Copilot', version: '1.0.102' });
    assert.equal(quirks.infoInText, true);
    const model = new SessionModel('s');
    model.quirks = quirks;
    model.apply(say('Info: /work/.github/copilot-instructions.md\n'));
    model.apply(say('The answer.'));
    model.apply(say('Info: in the middle of a sentence, with more\nlines'));
    assert.deepEqual(model.notices, [{ sessionUpdate: 'notice', severity: 'info', title: 'Info: /work/.github/copilot-instructions.md' }]);
    const text = model.entries.flatMap((e) => (e.type === 'message' ? e.content.map((b) => (b.type === 'text' ? b.text : '')) : []));
    assert.deepEqual(text.join(''), 'The answer.Info: in the middle of a sentence, with more\nlines', 'only a chunk that is one Info line');
    model.dispose();
    const other = new SessionModel('s');
    other.apply(say('Info: /work/a.md'));
    assert.deepEqual(other.notices, [], 'every other agent keeps its text');
    other.dispose();
  });

  it('names a mode whose id is a URL by its fragment, for Copilot only', () => {
    const name = modeName(agentQuirks({ name: 'Copilot', version: '1.0.102' }));
    assert.equal(name('https://agentclientprotocol.com/protocol/session-modes#plan'), 'plan');
    assert.equal(name('plan'), 'plan');
    assert.equal(name('https://example.com/no-fragment#'), 'https://example.com/no-fragment#');
    assert.equal(
      modeName(NO_QUIRKS)('https://agentclientprotocol.com/protocol/session-modes#plan'),
      'https://agentclientprotocol.com/protocol/session-modes#plan',
    );
  });
});

describe('codex-acp’s retries and late errors in session_info_update', () => {
  const info = (error: unknown) => ({ sessionUpdate: 'session_info_update' as const, _meta: { codex: { error } } });
  const codex = agentQuirks({ name: '@agentclientprotocol/codex-acp', version: '2.6.0' });
  const running = () => ({ turn: { phase: 'running' as const } });

  it('says a turn’s first retry as a warning while it runs, for codex-acp only, bounded', () => {
    const session = running();
    assert.deepEqual(infoError(codex, info({ message: 'Reconnecting... 1/5', willRetry: true, turnId: 't1' }), session), {
      sessionUpdate: 'notice',
      severity: 'warning',
      title: 'Reconnecting... 1/5',
    });
    assert.equal(infoError(codex, info({ message: 'Reconnecting... 2/5', willRetry: true, turnId: 't1' }), session), undefined, 'once a turn');
    assert.equal(infoError(codex, info({ message: 'Reconnecting... 1/5', willRetry: true, turnId: 't2' }), session)?.severity, 'warning');
    assert.ok((infoError(codex, info({ message: 'x'.repeat(100_000), turnId: 't3' }), running())?.title.length ?? Infinity) <= 501);
    assert.equal(infoError(NO_QUIRKS, info({ message: 'Reconnecting... 1/5', willRetry: true }), running()), undefined, 'another agent');
    assert.equal(infoError(codex, info({ message: '  ' }), running()), undefined);
    assert.equal(infoError(codex, info('Reconnecting'), running()), undefined);
    assert.equal(infoError(codex, { sessionUpdate: 'session_info_update', title: 'A title' }, running()), undefined);
  });

  it('says an error once, however often v2’s patches carry it again, and not a reopened session’s old one', () => {
    const late = info({ message: 'stream disconnected before completion', willRetry: false, turnId: 't1' });
    const reopened = { turn: { phase: 'idle' as const } };
    assert.equal(infoError(codex, late, reopened), undefined, 'before a turn of its own');
    assert.equal(infoError(codex, info({ message: 'Reconnecting... 1/5', willRetry: true }), reopened), undefined, 'no turn runs');
    const worked = { turn: { phase: 'idle' as const, stopReason: 'end_turn' as const } };
    assert.equal(infoError(codex, late, worked)?.severity, 'error');
    assert.equal(infoError(codex, late, worked), undefined, 'carried again by the next patch');
  });
});
