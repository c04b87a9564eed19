// What the user asks of the host, one named function per intent. Components call these instead of writing message
// literals, so that every message the view can send is listed here, typed by the shared WebviewMessage union.
import type { CheckpointAnswer, ErrorAction, FieldInput, MentionKind, PermissionLevelName, TurnAction, WhileBusyMode } from '../src/chat/protocol';
import { post } from './api';

/** The view is listening: the host sends the whole state. */
export function ready(): void {
  post({ type: 'ready' });
}

/** Sends a prompt with the attachments (by id) the host holds for it; while a turn runs, as `mode` says (default: the setting). */
/** What the user is writing, for the host to keep (a chat that moves takes it along). */
export function tellDraft(text: string): void {
  post({ type: 'draft', text });
}

export function sendPrompt(text: string, attachments: readonly string[], mode?: WhileBusyMode, images: readonly string[] = []): void {
  post({ type: 'send', text, attachments: [...attachments], ...(mode ? { mode } : {}), ...(images.length > 0 ? { images: [...images] } : {}) });
}

/** A queued message's buttons: back into the composer, out of the queue, up or down. */
export function changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void {
  post({ type: 'queue', action, id });
}

/** The user's answer to a question from the agent: Submit with what each field holds, Decline or Cancel. */
export function answerElicitation(
  id: number,
  action: 'accept' | 'decline' | 'cancel',
  values?: Record<string, FieldInput>,
  sessionId?: string,
): void {
  post({ type: 'elicitation', id, action, ...(values ? { values } : {}), ...(sessionId ? { sessionId } : {}) });
}

/** Open on a url question: the host opens the page in the browser. */
export function openElicitationUrl(id: number, sessionId?: string): void {
  post({ type: 'openElicitationUrl', id, ...(sessionId ? { sessionId } : {}) });
}

/** Send on a held queue. */
export function sendQueued(): void {
  post({ type: 'sendQueued' });
}

/** Stops the running turn. */
export function cancelTurn(): void {
  post({ type: 'cancel' });
}

/** Answers a permission request with one of its options (a subagent's when `sessionId` names it). */
export function answerPermission(id: number, optionId: string, sessionId?: string): void {
  post({ type: 'permission', id, optionId, ...(sessionId ? { sessionId } : {}) });
}

/** Stop on a tool card: the agent stops that call alone (v2). */
export function cancelToolCall(toolCallId: string): void {
  post({ type: 'cancelToolCall', toolCallId });
}

/** Cancel on a subagent's card. */
export function cancelSubagent(sessionId: string): void {
  post({ type: 'cancelSubagent', sessionId });
}

/** Stop (a command the client runs) or Dismiss (what only the agent can stop) on an item of the background work. */
export function background(key: string, action: 'stop' | 'dismiss'): void {
  post({ type: 'background', key, action });
}

/** A button of the agent error: restart, sign in, manage trust, settings or the log. */
export function runErrorAction(action: ErrorAction): void {
  post({ type: 'errorAction', action });
}

/** A button of a failed turn: Retry, Sign In or Switch Model. */
export function runTurnAction(action: TurnAction): void {
  post({ type: 'turnAction', action });
}

/** Opens the `index`th diff of a tool card (a permission's diff is its card's first). */
export function showDiff(toolCallId: string, index: number): void {
  post({ type: 'showDiff', toolCallId, index });
}

export function openLocation(toolCallId: string, index: number): void {
  post({ type: 'openLocation', toolCallId, index });
}

export function showTerminal(toolCallId: string, terminalId: string): void {
  post({ type: 'showTerminal', toolCallId, terminalId });
}

/** A link in agent text; the host decides what it may open. */
export function openLink(href: string): void {
  post({ type: 'openLink', href });
}

/** The button of a plan the agent keeps (in a file, or as Markdown: then it opens for review). */
export function openPlan(planId: string): void {
  post({ type: 'openPlan', planId });
}

/** Open Plan in Editor on a plan approval (a subagent's when `sessionId` names it). */
export function openPlanReview(id: number, sessionId?: string): void {
  post({ type: 'openPlanReview', id, ...(sessionId ? { sessionId } : {}) });
}

/** The Copy button of a code block. */
export function copyCode(text: string): void {
  post({ type: 'copy', text });
}

/** Copy on a message (its Markdown source) or a tool card (its output); `earlier`: an entry kept above the session. */
export function copyEntry(entryId: number, earlier: boolean, sessionId?: string): void {
  post({ type: 'copyEntry', entryId, ...(earlier ? { earlier } : {}), ...(sessionId !== undefined ? { sessionId } : {}) });
}

/** Edit and Resend on one of the user's messages, with its new text. */
export function resend(entryId: number, text: string): void {
  post({ type: 'resend', entryId, text });
}

/** Asks for the data of an image of a message (answered once, with an `image` message). */
export function loadImage(entryId: number, index: number): void {
  post({ type: 'loadImage', entryId, index });
}

/** Open the Earlier Branch: the session an edited and resent conversation came from, in a chat. */
export function openBranch(): void {
  post({ type: 'openBranch' });
}

/** A click on an image: full size in an editor. */
export function openImage(entryId: number, index: number): void {
  post({ type: 'openImage', entryId, index });
}

/** The Insert button of a code block: into the active editor. */
export function insertCode(text: string): void {
  post({ type: 'insert', text });
}

/** Asks for workspace files matching an `@` query; the answer carries the same `requestId`. */
export function searchFiles(requestId: number, query: string): void {
  post({ type: 'searchFiles', requestId, query });
}

/** Attaches a workspace file found by `searchFiles` (its workspace-relative path). */
export function mention(kind: MentionKind, path: string): void {
  post({ type: 'mention', path, kind });
}

/** Files or folders dropped on the composer (from the Explorer or a tab), as URIs. */
export function dropUris(uris: readonly string[]): void {
  post({ type: 'dropUris', uris: [...uris] });
}

/** The `/` list opened: the host reads the prompt files again. */
export function listPrompts(): void {
  post({ type: 'listPrompts' });
}

/** A prompt file picked under `/`. */
export function usePrompt(name: string, source: 'workspace' | 'user'): void {
  post({ type: 'usePrompt', name, source });
}

/** Attach Anyway on a chip larger than the bound. */
export function confirmAttachment(id: string): void {
  post({ type: 'confirmAttachment', id });
}

/** Attaches a pasted or dropped image (`data` in base64); `token` is the page's name for it, given back on its chip. */
export function attachImage(name: string, mimeType: string, data: string, token?: string): void {
  post({ type: 'attachImage', name, mimeType, data, ...(token !== undefined ? { token } : {}) });
}

export function removeAttachment(id: string): void {
  post({ type: 'removeAttachment', id });
}

/** The chat header's permission level: the host sets it, and the picker shows what it set. */
export function setPermissionLevel(level: PermissionLevelName): void {
  post({ type: 'setPermissionLevel', level });
}

/** Asks the agent for another mode; the picker shows the agent's answer. */
export function setMode(modeId: string): void {
  post({ type: 'setMode', modeId });
}

/** Asks the agent to change a session config option. */
export function setConfig(configId: string, value: string | boolean): void {
  post({ type: 'setConfig', configId, value });
}

/** Review Changes on a turn's changes card: the host opens what the turn changed. */
export function reviewChanges(turn: number): void {
  post({ type: 'changes', turn, action: 'review' });
}

/** Undo Changes: every file the turn changed goes back to how it was before the turn. */
export function undoChanges(turn: number): void {
  post({ type: 'changes', turn, action: 'undo' });
}

/** Redo Changes: the turn's changes come back after an undo. */
export function redoChanges(turn: number): void {
  post({ type: 'changes', turn, action: 'redo' });
}

/** Keep: the user accepts the turn's changes and the card folds to one line. */
export function keepChanges(turn: number): void {
  post({ type: 'changes', turn, action: 'keep' });
}

/** Send Feedback: the comments written on the turn's changes go to the agent. */
export function sendFeedback(turn: number): void {
  post({ type: 'changes', turn, action: 'feedback' });
}

/** A file of a changes card: its diff from before the turn to now. */
export function openChange(turn: number, index: number): void {
  post({ type: 'openChange', turn, index });
}

/** Restore Checkpoint on a user message: every file back to how it was before that message. */
export function restoreCheckpoint(turn: number): void {
  post({ type: 'restoreCheckpoint', turn });
}

/** Redo Changes after a Restore Checkpoint. */
/** Fork from Here on a user message. */
export function forkFrom(entryId: number): void {
  post({ type: 'fork', entryId });
}

export function redoRestore(): void {
  post({ type: 'redoRestore' });
}

/** The user's answer to the question the checkpoints ask (files changed since, or what a restore would change). */
export function answerCheckpoint(id: number, answer: CheckpointAnswer): void {
  post({ type: 'checkpointAnswer', id, answer });
}
