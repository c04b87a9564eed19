// "ACP: Search Chats…": the text of every chat kept for this workspace (messages, tool titles, file names), searched
// through an index (search.ts) as the user types, in a quick pick with each result's context. Opening one brings
// the chat back (or forward, when it is open) at the matching message.
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { ChatPanel } from '../chat/panel';
import type { Chats } from '../chats/chats';
import { relativeTime } from './relativeTime';
import { ChatSearch } from '../history/search';
import type { SearchHit } from '../history/searchMatch';
import type { TranscriptStore } from '../history/transcripts';
import { DisposableStore } from '../common/disposables';

/** Typing settles for this long before a search runs. */
const TYPING_MS = 120;
const RESULTS = 50;

type HitItem = vscode.QuickPickItem & { readonly hit: SearchHit };

export class SearchChats implements vscode.Disposable {
  private readonly search: ChatSearch;
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    store: TranscriptStore,
    private readonly log: Logger,
  ) {
    this.search = new ChatSearch({ list: () => store.list(), read: (agent, sessionId) => store.read(agent, sessionId) }, log);
    const touched = store.onDidTouch(({ agent, sessionId }) => this.search.invalidate(agent, sessionId));
    this.disposables = new DisposableStore({ dispose: () => touched.dispose() });
  }

  /** The quick pick; resolves with the chat opened at the chosen result (a handle-less panel), or undefined. */
  async pick(initial: string): Promise<ChatPanel | undefined> {
    const quickPick = vscode.window.createQuickPick<HitItem>();
    quickPick.title = vscode.l10n.t('Search Chats');
    quickPick.placeholder = vscode.l10n.t('Search the chats kept for this workspace: messages, tool calls, file names');
    // A chat that finishes a turn meanwhile may take the focus back to its composer: the search stays open.
    quickPick.ignoreFocusOut = true;
    quickPick.matchOnDescription = false;
    quickPick.matchOnDetail = false;
    let running: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    const run = (query: string) => {
      running?.abort();
      clearTimeout(timer);
      if (query.trim() === '') {
        quickPick.items = [];
        quickPick.busy = false;
        return;
      }
      const controller = new AbortController();
      running = controller;
      timer = setTimeout(() => {
        quickPick.busy = true;
        const show = (hits: readonly SearchHit[]) => {
          if (!controller.signal.aborted) quickPick.items = hits.map((hit) => this.item(hit));
        };
        this.search.search(query, { limit: RESULTS, signal: controller.signal, onProgress: show }).then(
          (hits) => {
            if (controller.signal.aborted) return;
            show(hits);
            quickPick.busy = false;
            if (hits.length === 0) quickPick.placeholder = vscode.l10n.t('No chat kept for this workspace mentions that.');
          },
          (error: unknown) => {
            this.log.warn(`[history] the search failed: ${errorMessage(error)}`);
            quickPick.busy = false;
          },
        );
      }, TYPING_MS);
    };
    let chosen: SearchHit | undefined;
    const done = new Promise<void>((resolve) => {
      quickPick.onDidChangeValue(run);
      quickPick.onDidAccept(() => {
        chosen = quickPick.selectedItems[0]?.hit ?? quickPick.activeItems[0]?.hit;
        if (chosen) quickPick.hide();
      });
      quickPick.onDidHide(() => resolve());
    });
    quickPick.value = initial;
    quickPick.show();
    // The open chats' latest messages are written first (they are written a second after a change otherwise).
    quickPick.busy = true;
    await this.chats.saveTranscripts();
    run(quickPick.value);
    await done;
    running?.abort();
    clearTimeout(timer);
    quickPick.dispose();
    return chosen ? this.open(chosen) : undefined;
  }

  private item(hit: SearchHit): HitItem {
    const when = relativeTime(hit.updatedAt, Date.now(), vscode.env.language);
    const open = this.chats.showing(hit.agent, hit.sessionId) ? vscode.l10n.t('open') : undefined;
    const who = hit.role === 'user' ? vscode.l10n.t('You') : hit.role === 'tool' ? vscode.l10n.t('Tool') : hit.agent;
    return {
      label: hit.title,
      description: [hit.agent, hit.archived ? vscode.l10n.t('archived') : undefined, when, open].filter((part) => part).join(' · '),
      detail: `${who}: ${hit.snippet}`,
      // The index decides what matches: VS Code's own filter on the title would hide most results.
      alwaysShow: true,
      hit,
    };
  }

  /** Opens the chat of `hit` (or brings it forward) at the matching message. */
  private async open(hit: SearchHit): Promise<ChatPanel | undefined> {
    const panel = await this.chats.openPrevious(hit.agent, { sessionId: hit.sessionId, cwd: hit.cwd });
    if (!panel) return undefined;
    const [start, length] = hit.highlight;
    const text = hit.snippet.slice(start, start + length) || hit.snippet.slice(0, 40);
    if (!panel.revealMatch({ role: hit.role, roleIndex: hit.roleIndex, text })) {
      panel.model.tell(vscode.l10n.t('The message that matched is not in this chat any more.'));
    }
    return panel;
  }

  dispose(): void {
    this.disposables.dispose();
    this.search.dispose();
  }
}
