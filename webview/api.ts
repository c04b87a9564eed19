// The webview's side of the channel to the host: every message out is a typed WebviewMessage.
import type { SessionTarget, WebviewMessage } from '../src/chat/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(message: WebviewMessage): void {
  api.postMessage(message);
}

/** What survives a reload of the view: the draft, and which chat this is (for the serializer). */
export interface Saved {
  readonly draft?: string;
  readonly restore?: SessionTarget;
  /** The texts of the queued messages, so a window reload keeps them (they then wait for the user's Send). */
  readonly queued?: readonly string[];
}

export function loadSaved(): Saved {
  const state = api.getState();
  return state && typeof state === 'object' ? (state as Saved) : {};
}

export function save(saved: Saved): void {
  api.setState(saved);
}
