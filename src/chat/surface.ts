// Where a chat is shown: an editor tab (a WebviewPanel) or the secondary side bar (a WebviewView). The chat panel
// talks only to this face, so that a chat can move from one to the other and keep its conversation, its draft and
// its running turn: the panel stays, only its surface changes.
import * as vscode from 'vscode';
import { CHAT_VIEW_TYPE } from '../ids';
import { webviewOptions } from './html';
import { DisposableStore } from '../common/disposables';

/** Where a chat lives: an editor tab, or the side bar's chat view (`acp.chat.location`). */
export type ChatLocation = 'editor' | 'sideBar';

export interface ChatSurface {
  readonly location: ChatLocation;
  readonly webview: vscode.Webview;
  /** The tab's title, or the view's description (the view keeps its own name). */
  setTitle(title: string): void;
  readonly visible: boolean;
  /** An editor tab that is the active one; the side bar's view while it is visible. */
  readonly active: boolean;
  /** The editor column, for opening diffs beside the chat; undefined in the side bar. */
  readonly viewColumn: vscode.ViewColumn | undefined;
  reveal(preserveFocus: boolean): void;
  /** The user closed the tab, or the view went away. Not fired by `release()`. */
  readonly onDidClose: vscode.Event<void>;
  /** It became visible, hidden, active or not. */
  readonly onDidChangeViewState: vscode.Event<{ readonly active: boolean }>;
  /** Lets go of the surface when the chat moves elsewhere: a tab closes, the view shows that it is empty. */
  release(): void;
}

/**
 * What both surfaces share: a close event that their own going away fires (a release does not), the view-state
 * event, and their disposal.
 */
function lifetime(onDidDispose: vscode.Event<void>, watchState: (fire: (active: boolean) => void) => vscode.Disposable) {
  const closed = new vscode.EventEmitter<void>();
  const state = new vscode.EventEmitter<{ readonly active: boolean }>();
  let released = false;
  const end = () => subscriptions.dispose();
  const subscriptions = new DisposableStore(
    closed,
    state,
    onDidDispose(() => {
      if (!released) closed.fire();
      end();
    }),
    watchState((active) => state.fire({ active })),
  );
  return {
    onDidClose: closed.event,
    onDidChangeViewState: state.event,
    /** Lets go of the events (its going away is no close from now on); false when it was released already. */
    release(): boolean {
      if (released) return false;
      released = true;
      end();
      return true;
    },
  };
}

/** A chat in an editor tab. */
function editorSurface(panel: vscode.WebviewPanel, icon: vscode.Uri): ChatSurface {
  panel.iconPath = icon;
  const life = lifetime(panel.onDidDispose, (fire) => panel.onDidChangeViewState((event) => fire(event.webviewPanel.active)));
  return {
    location: 'editor',
    webview: panel.webview,
    setTitle: (title) => {
      panel.title = title;
    },
    get visible() {
      return panel.visible;
    },
    get active() {
      return panel.active;
    },
    get viewColumn() {
      return panel.viewColumn;
    },
    reveal: (preserveFocus) => panel.reveal(undefined, preserveFocus),
    onDidClose: life.onDidClose,
    onDidChangeViewState: life.onDidChangeViewState,
    release: () => {
      if (life.release()) panel.dispose();
    },
  };
}

/**
 * A chat in the side bar's chat view. `onRelease` gives the view back to its owner (which shows that it is empty);
 * `reveal` shows the view (its owner knows how).
 */
export function sideBarSurface(view: vscode.WebviewView, reveal: (preserveFocus: boolean) => void, onRelease: () => void): ChatSurface {
  const life = lifetime(view.onDidDispose, (fire) => view.onDidChangeVisibility(() => fire(view.visible)));
  return {
    location: 'sideBar',
    webview: view.webview,
    setTitle: (title) => {
      view.description = title;
    },
    get visible() {
      return view.visible;
    },
    get active() {
      return view.visible;
    },
    viewColumn: undefined,
    reveal,
    onDidClose: life.onDidClose,
    onDidChangeViewState: life.onDidChangeViewState,
    release: () => {
      if (life.release()) onRelease();
    },
  };
}

/** An editor tab for a chat, beside the active editor. */
export function editorTab(extensionUri: vscode.Uri, title: string): ChatSurface {
  const panel = vscode.window.createWebviewPanel(
    CHAT_VIEW_TYPE,
    title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
    webviewOptions(extensionUri),
  );
  return adoptTab(panel, extensionUri);
}

/** An editor tab VS Code made (a new one, or one it restored after a reload), as a chat's surface. */
export function adoptTab(panel: vscode.WebviewPanel, extensionUri: vscode.Uri): ChatSurface {
  return editorSurface(panel, vscode.Uri.joinPath(extensionUri, 'media', 'icon.png'));
}
