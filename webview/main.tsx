// The chat view. It renders what the host sends (validated on arrival) and posts the user's actions back. It holds
// no protocol logic: the host turns the session into views, and the view keeps only what the user is writing.
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useReducer, useRef } from 'preact/hooks';
import { HostMessage, type WhileBusyMode } from '../src/chat/protocol';
import { loadSaved, save } from './api';
import { Announcer } from './components/announcer';
import { Composer } from './components/composer';
import { Conversation } from './components/conversation';
import { Header } from './components/header';
import { Plans } from './components/plans';
import { Queue } from './components/queue';
import { Background } from './components/background';
import { forgetImages, receiveImage } from './images';
import { imagesForSend, imagesPending } from './imagesInFlight';
import { ready, sendPrompt, tellDraft } from './intents';
import { setBundle, t } from './l10n';
import { memo } from './memo';
import { initialState, promptHistory, reduce, type ChatState } from './state';

// While the agent streams, only the conversation changes: the rest of the view renders again only when its props do.
const ComposerPart = memo(Composer);
const HeaderPart = memo(Header);
const PlansPart = memo(Plans);
const ConversationPart = memo(Conversation);

/** How long after the last key the draft is told to the host. */
const DRAFT_DELAY_MS = 300;

// eslint-disable-next-line max-lines-per-function -- the page's root: the state, the host's messages and the layout
function App() {
  const [state, dispatch] = useReducer(reduce, undefined, () => initialState(loadSaved().draft ?? ''));

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const parsed = HostMessage.safeParse(event.data);
      if (!parsed.success) return; // only the host posts here; anything else is not ours
      if (parsed.data.type === 'state') {
        setBundle(parsed.data.l10n); // before the render that uses it
        forgetImages();
      }
      if (parsed.data.type === 'image') {
        const { entryId, index, src, refused } = parsed.data;
        if (src !== undefined || refused !== undefined) receiveImage(entryId, index, src !== undefined ? { src } : { refused: refused! });
      } else dispatch(parsed.data);
    };
    window.addEventListener('message', onMessage);
    ready();
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(
    () =>
      save({
        draft: state.draft,
        ...(state.restore ? { restore: state.restore } : {}),
        ...(state.queue.items.length > 0 ? { queued: state.queue.items.map((item) => item.text) } : {}),
      }),
    [state.draft, state.restore, state.queue],
  );

  // The host keeps the draft too (a little after the last key), so a chat that moves to another place keeps it.
  // Only once the host's state is in: until then the page's draft may be one the host is about to give it.
  useEffect(() => {
    if (!state.loaded) return;
    const timer = setTimeout(() => tellDraft(state.draft), DRAFT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [state.draft, state.loaded]);

  const send = useCallback(
    (mode?: WhileBusyMode) => {
      const { draft, attachments } = state;
      const tokens = attachments.map((a) => a.token);
      if (draft.trim() === '' && attachments.length === 0 && !imagesPending(tokens)) return;
      dispatch({ type: 'sent' }); // at once: what is typed from now on is the next message
      // An image pasted just before is read first, and named, so the host sends it with the message.
      void imagesForSend(tokens).then((images) =>
        sendPrompt(
          draft,
          attachments.map((a) => a.id),
          mode,
          images,
        ),
      );
    },
    [state.draft, state.attachments],
  );
  const setDraft = useCallback((text: string) => dispatch({ type: 'draft', text }), []);
  const tell = useCallback((text: string) => dispatch({ type: 'localNotice', text }), []);
  // The same array while the prompts are the same, so that streaming entries do not render the composer again.
  const lastHistory = useRef<string[]>([]);
  const history = useMemo(() => {
    const next = promptHistory(state);
    const same = next.length === lastHistory.current.length && next.every((p, i) => p === lastHistory.current[i]);
    return same ? lastHistory.current : (lastHistory.current = next);
  }, [state.earlier, state.entries]);

  // Find searches the plans too: their text is joined when they change, not on every streamed update.
  const plans = useMemo(() => planText(state.session), [state.session.plan, state.session.plans]);

  return (
    <main class="chat" aria-label={state.agent ? t('Chat with {0}', state.agent) : t('Chat')}>
      <HeaderPart
        title={state.session.title}
        agent={state.agent}
        usage={state.session.usage}
        lastTurn={state.turn.usage?.at(-1)}
        level={state.permissionLevel}
        worktree={state.session.worktree}
        account={state.session.account}
      />
      <ConversationPart
        agent={state.agent}
        loaded={state.loaded}
        earlier={state.earlier}
        {...(state.divider ? { divider: state.divider } : {})}
        branch={state.branch === true}
        entries={state.entries}
        permissions={state.permissions}
        elicitations={state.elicitations}
        subagents={state.subagents}
        turn={state.turn}
        notices={state.session.notices}
        agentError={state.agentError}
        checkpoints={state.checkpoints}
        canFork={state.session.canFork ?? false}
        reveal={state.reveal}
        planText={plans}
      />
      <Queue queue={state.queue} busy={state.turn.phase !== 'idle'} />
      <Background items={state.background} />
      <Announcer entries={state.entries} running={state.turn.phase !== 'idle'} />
      {state.notice && (
        <p class="notice" role="status">
          {state.notice}
        </p>
      )}
      <PlansPart entries={state.session.plan} plans={state.session.plans} />
      <ComposerPart
        agent={state.agent}
        draft={state.draft}
        setDraft={setDraft}
        send={send}
        turn={state.turn}
        queue={state.queue}
        disabled={!state.loaded}
        session={state.session}
        attachments={state.attachments}
        prompts={state.prompts}
        files={state.files}
        history={history}
        focusRequest={state.focusRequest}
        tell={tell}
      />
    </main>
  );
}

/** The text of the plans above the composer, which Find searches too. */
function planText(session: ChatState['session']): string {
  const byId = (session.plans ?? []).map((p) =>
    p.kind === 'items' ? p.entries.map((e) => e.content).join('\n') : p.kind === 'markdown' ? p.markdown : p.name,
  );
  return [...session.plan.map((e) => e.content), ...byId].join('\n');
}

const root = document.getElementById('root');
if (root) render(<App />, root);
