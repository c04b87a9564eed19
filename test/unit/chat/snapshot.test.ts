import * as assert from 'node:assert/strict';
import type { AgentSession } from '../../../src/acp/agentClient';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import { ChatModel, PART_OF_CHANGE } from '../../../src/chat/chatModel';
import { FIRST_ENTRIES, PARTS, WebviewMessage, type EntryView } from '../../../src/chat/protocol';
import { findMatch } from '../../../src/chat/reveal';
import { headOf, snapshotOf, stateOf, updateOf, type ChatSnapshot } from '../../../src/chat/snapshot';
import { handleOf, handleOrNone, type HandledChat } from '../../../src/chats/handle';

const OPTIONS: S.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** A session as the views read it: a real model, and the few facts of its client. */
function session(model: SessionModel, ended?: Error & { stderrTail?: string[] }): AgentSession {
  return {
    sessionId: model.sessionId,
    cwd: '/work',
    model,
    leftOut: [{ name: 'docs', transport: 'http' }],
    ended,
    onDidEndAgent: () => ({ dispose: () => undefined }),
    client: {
      process: { pid: 4242 },
      capabilities: { accepts: { image: false, embeddedContext: true }, supports: (what: string) => what === 'forkSession' },
      auth: {
        status: { state: 'authenticated', accounts: [{ label: 'Pro', email: 'ada@example.com', active: true }] },
        onDidChange: () => ({ dispose: () => undefined }),
      },
    },
  } as unknown as AgentSession;
}

function model(): SessionModel {
  return new SessionModel('sess-1', {
    modes: {
      currentModeId: 'ask',
      availableModes: [
        { id: 'ask', name: 'Ask' },
        { id: 'code', name: 'Code' },
      ],
    },
  });
}

/** What a chat was given before its snapshot is read. */
interface Given {
  readonly session?: AgentSession;
  readonly earlier?: EntryView[];
  readonly worktree?: { readonly branch: string; readonly path: string };
  readonly notice?: string;
  readonly draft?: string;
}

/** A chat's model as its panel would have filled it: one attachment, and what `given` says. */
function chatModel(given: Given = {}): ChatModel {
  const chat = new ChatModel('Fixture', () => given.worktree);
  if (given.earlier) chat.showEarlier(given.earlier, 'earlier');
  if (given.session) chat.attach(given.session, true);
  chat.showAttachments([{ id: '1', kind: 'file', label: 'src/a.ts' }], false);
  if (given.notice) chat.tell(given.notice);
  if (given.draft) chat.draftChanged(given.draft);
  return chat;
}

const FACE = { location: 'editor', title: 'Fixture', attention: 'none' } as const;

describe('chat snapshot', () => {
  it('shows the earlier conversation above the session’s own, in the chat view’s shapes', () => {
    const earlier: EntryView[] = [{ id: 0, kind: 'message', role: 'user', text: 'kept', chips: [] }];
    const m = model();
    m.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } });
    m.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'Read',
      kind: 'read',
      status: 'completed',
      locations: [{ path: '/work/src/a.ts', line: 3 }],
    });
    const shot = snapshotOf(chatModel({ earlier, session: session(m) }), FACE);
    assert.deepEqual(
      shot.entries.map((e) =>
        e.kind === 'message' ? `${e.role}:${e.text}` : e.kind === 'tool' ? `tool:${e.toolCallId}:${e.locations.join()}` : e.kind,
      ),
      ['user:kept', 'agent:hello', 'tool:t1:src/a.ts:3'],
    );
    assert.deepEqual(shot.attachments, [{ id: '1', kind: 'file', label: 'src/a.ts' }]);
    assert.equal(shot.agentPid, 4242);
    assert.equal(shot.sessionId, 'sess-1');
    assert.deepEqual(shot.leftOut, [{ name: 'docs', transport: 'http' }]);
    assert.equal(shot.session.pickers.find((p) => p.id === 'mode')?.current, 'ask');
    assert.equal(shot.session.canFork, true);
  });

  it('reads as an empty, idle chat before a session is attached', () => {
    const shot = snapshotOf(chatModel(), FACE);
    assert.equal(shot.sessionId, undefined);
    assert.equal(shot.agentPid, undefined);
    assert.deepEqual([shot.entries, shot.permissions, shot.session.pickers, shot.leftOut], [[], [], [], []]);
    assert.deepEqual(shot.turn, { phase: 'idle' });
    assert.equal(shot.agentEnd, undefined);
  });

  it('shows the worktree a session works in, its branch and folder, and nothing of one for a chat in the workspace', () => {
    const worktree = { branch: 'acp/gemini-1', path: '/ws.worktrees/acp-gemini-1' };
    assert.deepEqual(snapshotOf(chatModel({ session: session(model()), worktree }), FACE).session.worktree, worktree);
    assert.equal(snapshotOf(chatModel({ session: session(model()) }), FACE).session.worktree, undefined);
    assert.equal(snapshotOf(chatModel({ worktree }), FACE).session.worktree, undefined, 'no session, nothing to show');
  });

  it('says who the agent runs as, for the header\u2019s tooltip', () => {
    assert.deepEqual(snapshotOf(chatModel({ session: session(model()) }), FACE).session.account, {
      state: 'authenticated',
      names: ['ada@example.com (Pro)'],
    });
  });

  it('says why the agent stopped, with its last stderr lines', () => {
    const ended = Object.assign(new Error('the agent exited with code 3: giving up'), { stderrTail: ['trying', 'giving up'] });
    assert.deepEqual(snapshotOf(chatModel({ session: session(model(), ended) }), FACE).agentEnd, {
      message: 'the agent exited with code 3: giving up',
      stderr: ['trying', 'giving up'],
    });
  });

  it('builds the whole state with every view part, and an update with only the parts that changed', () => {
    const m = model();
    m.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'one' } });
    m.apply({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'two' } });
    const chat = chatModel({ session: session(m), notice: 'said', draft: 'half' });
    const state = stateOf(chat, undefined);
    for (const part of PARTS) assert.ok(part in state, `the state carries ${part}`);
    assert.equal(state.notice, 'said');
    assert.equal(state.draft, 'half');
    assert.deepEqual(state.restore, { agent: 'Fixture', sessionId: 'sess-1', cwd: '/work' });
    const update = updateOf(chat, new Set([1]), new Set(['queue', 'agentError']));
    assert.deepEqual(Object.keys(update).sort(), ['agentError', 'entries', 'queue', 'type']);
    assert.deepEqual(
      update.entries.map(({ index }) => index),
      [1],
    );
  });

  it('gives a reloading page a long chat’s last entries, and the ones before them in its head, as they are then', () => {
    const m = model();
    for (let i = 0; i < 200; i++) {
      m.apply({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${i}` } });
      m.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i}` } });
    }
    const earlier: EntryView[] = Array.from({ length: 50 }, (_, id) => ({ id, kind: 'message', role: 'user', text: `kept ${id}`, chips: [] }));
    const chat = chatModel({ earlier, session: session(m) });
    const text = (e: EntryView) => (e.kind === 'message' ? e.text : e.kind);
    const state = stateOf(chat, undefined, 7);
    assert.deepEqual(state.from, { entries: 100, earlier: 50, seq: 7 }, 'the last FIRST_ENTRIES, all of them the session’s');
    assert.equal(state.entries.length, FIRST_ENTRIES);
    assert.deepEqual([text(state.entries[0]!), text(state.entries.at(-1)!)], ['question 50', 'answer 199']);
    assert.deepEqual(state.earlier, []);
    const head = headOf(chat, state.from!);
    assert.equal(head.seq, 7);
    assert.deepEqual([head.earlier.length, head.entries.length], [50, 100]);
    assert.deepEqual([text(head.entries[0]!), text(head.entries.at(-1)!)], ['question 0', 'answer 49']);
    // Without a seq (the handle's, a test's), or with an entry to bring into view, everything goes at once.
    assert.equal(stateOf(chat, undefined).entries.length, 400);
    assert.equal(stateOf(chat, undefined).from, undefined);
    chat.reveal({ earlier: true, entry: earlier[0]! });
    assert.equal(stateOf(chat, undefined, 8).from, undefined);
    // A shorter chat: all of it; a chat of mostly earlier entries: the earlier ones fill what is left.
    const short = chatModel({ earlier: earlier.slice(0, 10), session: session(model()) });
    assert.equal(stateOf(short, undefined, 1).from, undefined);
    const kept = chatModel({ earlier: Array.from({ length: 400 }, (_, id) => ({ ...earlier[0]!, id })), session: session(model()) });
    assert.deepEqual(stateOf(kept, undefined, 2).from, { entries: 0, earlier: 100, seq: 2 });
  });

  it('maps every change of the session model to the part that shows it', () => {
    // The table a reader checks: each kind of change, and the part of the view that shows it (entries go by index).
    assert.deepEqual(PART_OF_CHANGE, {
      entry: undefined,
      terminal: undefined,
      turn: 'turn',
      permission: 'permissions',
      elicitation: 'elicitations',
      subagent: 'subagents',
      info: 'session',
      plan: 'session',
      commands: 'session',
      mode: 'session',
      config: 'session',
      usage: 'session',
      notice: 'session',
      background: 'background',
    });
  });
});

describe('finding a search match in the chat', () => {
  const entries = (texts: string[]) => texts.map((text, id): EntryView => ({ id, kind: 'message', role: 'agent', text, chips: [] }));

  it('takes the entry at the index when it holds the text, else the nearest that does', () => {
    const [earlier, own] = [entries(['alpha']), entries(['beta', 'gamma', 'beta again'])];
    assert.deepEqual(findMatch(earlier, own, { role: 'agent', roleIndex: 1, text: 'BETA' }), { earlier: false, entry: own[0] });
    assert.equal(findMatch(earlier, own, { role: 'agent', roleIndex: 2, text: 'beta' })?.entry, own[0], 'the nearer, and the earlier of a tie');
    assert.equal(findMatch(earlier, own, { role: 'agent', roleIndex: 2, text: 'nowhere' })?.entry, own[1], 'the index when none holds it');
    assert.deepEqual(findMatch(earlier, own, { role: 'agent', roleIndex: 0, text: 'alpha' }), { earlier: true, entry: earlier[0] });
    assert.equal(findMatch(earlier, own, { role: 'user', roleIndex: 0, text: 'alpha' }), undefined);
  });
});

describe('ChatHandle', () => {
  /** A chat as its handle sees it: the messages it was sent, and a snapshot. */
  function chat(answer: (message: WebviewMessage) => unknown = () => undefined) {
    const sent: WebviewMessage[] = [];
    const m = model();
    const state = chatModel({ session: session(m) });
    const panel: HandledChat = {
      dispatch: ((message: WebviewMessage) => {
        // What the handle sends is what the chat view could have sent: it passes the same validation.
        sent.push(WebviewMessage.parse(message));
        return Promise.resolve(answer(message));
      }) as HandledChat['dispatch'],
      snapshot: (): ChatSnapshot => snapshotOf(state, FACE),
      dispose: () => void sent.push({ type: 'cancel' }),
    };
    return { panel, sent, model: m };
  }

  it('is one per chat, so the handles of a chat compare equal', () => {
    const { panel } = chat();
    assert.equal(handleOf(panel), handleOf(panel));
    assert.equal(handleOrNone(panel), handleOf(panel));
    assert.equal(handleOrNone(undefined), undefined);
    assert.notEqual(handleOf(chat().panel), handleOf(panel));
  });

  it('acts through the chat view’s messages, with what the composer holds', async () => {
    const { panel, sent } = chat((message) => (message.type === 'send' ? 'end_turn' : message.type === 'permission' ? true : undefined));
    const handle = handleOf(panel);
    assert.equal(await handle.send('hi'), 'end_turn');
    assert.equal(await handle.answerPermission(7, 'allow'), true);
    await handle.setMode('code');
    await handle.setConfigOption('model', 'smart');
    await handle.cancel();
    handle.submit('later', 'queue');
    await handle.answerElicitation(3, 'accept', { name: 'Ada', left: undefined as unknown as string });
    assert.deepEqual(sent, [
      { type: 'send', text: 'hi', attachments: ['1'], mode: 'queue' },
      { type: 'permission', id: 7, optionId: 'allow' },
      { type: 'setMode', modeId: 'code' },
      { type: 'setConfig', configId: 'model', value: 'smart' },
      { type: 'cancel' },
      { type: 'send', text: 'later', attachments: ['1'], mode: 'queue' },
      { type: 'elicitation', id: 3, action: 'accept', values: { name: 'Ada' } },
    ]);
  });

  it('reads what the chat shows from its snapshot', () => {
    const { panel, model: m } = chat();
    void m.requestPermission({ sessionId: 'sess-1', toolCall: { toolCallId: 'c1', title: 'npm test', kind: 'execute' }, options: OPTIONS });
    const handle = handleOf(panel);
    assert.equal(handle.permissions[0]?.title, 'npm test');
    assert.equal(handle.session.pickers.find((p) => p.id === 'mode')?.current, 'ask');
    assert.equal(handle.agentPid, 4242);
  });
});
