// The chat view. It renders what the host sends (validated on arrival) and posts the user's actions back. Agent
// text is rendered as text nodes, never as HTML.
import { render } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import { HostMessage, type AgentErrorView, type EntryView, type PermissionView, type TerminalView, type TurnView, type WebviewMessage } from '../src/chat/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: WebviewMessage) => vscode.postMessage(message);

interface ChatState {
  readonly agent: string;
  readonly entries: readonly EntryView[];
  readonly turn: TurnView;
  readonly permissions: readonly PermissionView[];
  readonly agentError: AgentErrorView | null;
  readonly loaded: boolean;
}

const initial: ChatState = { agent: '', entries: [], turn: { phase: 'idle' }, permissions: [], agentError: null, loaded: false };

function reduce(state: ChatState, message: HostMessage): ChatState {
  switch (message.type) {
    case 'state':
      return { agent: message.agent, entries: message.entries, turn: message.turn, permissions: message.permissions, agentError: message.agentError, loaded: true };
    case 'update': {
      let entries = state.entries;
      if (message.entries.length > 0) {
        const next = entries.slice();
        for (const { index, entry } of message.entries) next[index] = entry;
        entries = next;
      }
      return {
        ...state,
        entries,
        turn: message.turn ?? state.turn,
        permissions: message.permissions ?? state.permissions,
        agentError: message.agentError === undefined ? state.agentError : message.agentError,
      };
    }
    case 'sendFailed':
    case 'notice':
      return state;
  }
}

interface Saved {
  readonly draft?: string;
}

function saved(): Saved {
  const state = vscode.getState();
  return state && typeof state === 'object' ? (state as Saved) : {};
}

function App() {
  const [state, dispatch] = useReducer(reduce, initial);
  const [draft, setDraft] = useState(saved().draft ?? '');
  const [notice, setNotice] = useState<string | undefined>();

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const parsed = HostMessage.safeParse(event.data);
      if (!parsed.success) return; // only the host posts here; anything else is not ours
      const message = parsed.data;
      if (message.type === 'sendFailed') {
        // Give the draft back, keeping anything typed since.
        setDraft((current) => (current.trim() === '' ? message.text : `${message.text}\n${current}`));
        setNotice(`Not sent: ${message.reason}.`);
      }
      if (message.type === 'notice') setNotice(message.text);
      if (message.type === 'state' && message.notice) setNotice(message.notice);
      dispatch(message);
    };
    window.addEventListener('message', onMessage);
    post({ type: 'ready' });
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => vscode.setState({ draft } satisfies Saved), [draft]);

  const send = useCallback(() => {
    if (draft.trim() === '') return;
    post({ type: 'send', text: draft });
    setDraft('');
    setNotice(undefined);
  }, [draft]);

  return (
    <main class="chat" aria-label={state.agent ? `Chat with ${state.agent}` : 'Chat'}>
      <Conversation state={state} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <Composer draft={draft} setDraft={setDraft} send={send} turn={state.turn} disabled={!state.loaded} />
    </main>
  );
}

function Conversation({ state }: { state: ChatState }) {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  const onScroll = () => {
    const el = ref.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };
  const empty = state.loaded && state.entries.length === 0;
  return (
    <div class="conversation" ref={ref} onScroll={onScroll} role="log" aria-label="Conversation" aria-live="polite">
      {empty && <p class="hint">Ask {state.agent} anything. Enter sends, Shift+Enter adds a line.</p>}
      {state.entries.map((entry) => (entry.kind === 'message' ? <Message key={entry.id} entry={entry} /> : <Tool key={entry.id} entry={entry} />))}
      {state.permissions.map((p) => (
        <Permission key={p.id} permission={p} agent={state.agent} />
      ))}
      <TurnStatus turn={state.turn} />
      {state.agentError && <AgentError error={state.agentError} />}
    </div>
  );
}

function Message({ entry }: { entry: Extract<EntryView, { kind: 'message' }> }) {
  if (entry.text === '' && entry.role !== 'user') return null;
  const label = entry.role === 'user' ? 'You' : entry.role === 'thought' ? 'Thought' : 'Agent';
  return (
    <div class={`message ${entry.role}`}>
      <div class="role">{label}</div>
      <div class="text">{entry.text}</div>
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

function Tool({ entry }: { entry: Extract<EntryView, { kind: 'tool' }> }) {
  const status = STATUS_TEXT[entry.status] ?? entry.status;
  const card = { toolCallId: entry.toolCallId };
  return (
    <article class={`tool ${entry.status}`} aria-label={`${entry.title} (${status})`}>
      <div class="tool-head">
        <span class="tool-title">{entry.title}</span>
        <span class="tool-status">{status}</span>
      </div>
      {entry.locations.length > 0 && (
        <div class="tool-links">
          {entry.locations.map((label, index) => (
            <button key={`l${index}`} class="link" title={`Open ${label}`} onClick={() => post({ type: 'openLocation', ...card, index })}>
              {label}
            </button>
          ))}
        </div>
      )}
      {entry.diffs.map((diff, index) => (
        <div key={`d${index}`} class="tool-diff">
          <span>
            {diff.created ? 'New file' : 'Edit'}: {diff.label}
          </span>
          <button class="secondary" aria-label={`Open Diff of ${diff.label}`} onClick={() => post({ type: 'showDiff', ...card, index })}>
            Open Diff
          </button>
        </div>
      ))}
      {entry.terminals.map((terminal) => (
        <TerminalOutput key={terminal.id} terminal={terminal} title={entry.title} onShow={() => post({ type: 'showTerminal', ...card, terminalId: terminal.id })} />
      ))}
      {entry.autoAnswer && <p class="tool-note">{entry.autoAnswer}</p>}
    </article>
  );
}

function TerminalOutput({ terminal, title, onShow }: { terminal: TerminalView; title: string; onShow: () => void }) {
  return (
    <div class="terminal">
      <pre aria-label={`Output of ${title}`}>
        {terminal.truncated ? '…\n' : ''}
        {terminal.output}
      </pre>
      <div class="terminal-foot">
        <span>{terminal.exit ?? 'running…'}</span>
        <button class="secondary" onClick={onShow}>
          Show in Terminal
        </button>
      </div>
    </div>
  );
}

function Permission({ permission, agent }: { permission: PermissionView; agent: string }) {
  return (
    <div class="permission" role="group" aria-label={`Permission: ${permission.title}`}>
      <p>
        {agent} asks permission — {permission.kindLabel}: <strong>{permission.title}</strong>
      </p>
      <div class="actions">
        {permission.options.map((o) => (
          <button
            key={o.optionId}
            class={o.kind.startsWith('allow') ? 'primary' : 'secondary'}
            data-kind={o.kind}
            title={OPTION_HINTS[o.kind]}
            onClick={() => post({ type: 'permission', id: permission.id, optionId: o.optionId })}
          >
            {o.name}
          </button>
        ))}
        {permission.hasDiff && (
          <button class="secondary" onClick={() => post({ type: 'showDiff', toolCallId: permission.toolCallId, index: 0 })}>
            Show Diff
          </button>
        )}
      </div>
    </div>
  );
}

const OPTION_HINTS: Record<string, string> = {
  allow_once: 'Allow this time',
  allow_always: 'Allow, and remember it for this kind of tool call',
  reject_once: 'Reject this time',
  reject_always: 'Reject, and remember it for this kind of tool call',
};

const STOP_TEXT: Record<string, string> = {
  cancelled: 'Stopped.',
  max_tokens: 'The agent stopped: it reached its token limit.',
  max_turn_requests: 'The agent stopped: it reached its limit of requests for one turn.',
  refusal: 'The agent refused. This message and everything after it are left out of its context.',
};

function TurnStatus({ turn }: { turn: TurnView }) {
  if (turn.phase === 'running' || turn.phase === 'awaiting-user') {
    return (
      <p class="status busy" role="status">
        {turn.phase === 'running' ? 'Working…' : 'Waiting for your answer…'}
      </p>
    );
  }
  if (turn.phase === 'cancelling') return <p class="status">Stopping…</p>;
  if (turn.error) {
    return (
      <p class="status error" role="alert">
        The turn failed: {turn.error}
      </p>
    );
  }
  const text = turn.stopReason ? STOP_TEXT[turn.stopReason] : undefined;
  return text ? <p class="status">{text}</p> : null;
}

function AgentError({ error }: { error: AgentErrorView }) {
  return (
    <section class="agent-error" role="alert" aria-label="Agent stopped">
      <p>{error.message}</p>
      {error.stderr.length > 0 && <pre aria-label="The agent's last stderr lines">{error.stderr.join('\n')}</pre>}
      <button class="secondary" onClick={() => post({ type: 'showLog' })}>
        Show Log
      </button>
    </section>
  );
}

function Composer(props: { draft: string; setDraft: (text: string) => void; send: () => void; turn: TurnView; disabled: boolean }) {
  const { draft, setDraft, send, turn, disabled } = props;
  const busy = turn.phase !== 'idle';
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!busy) send();
    }
  };
  return (
    <div class="composer">
      <textarea
        aria-label="Message"
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        rows={3}
        value={draft}
        disabled={disabled}
        onInput={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button class="secondary" disabled={turn.phase === 'cancelling'} onClick={() => post({ type: 'cancel' })}>
          Stop
        </button>
      ) : (
        <button class="primary" disabled={disabled || draft.trim() === ''} onClick={send}>
          Send
        </button>
      )}
    </div>
  );
}

const root = document.getElementById('root');
if (root) render(<App />, root);
