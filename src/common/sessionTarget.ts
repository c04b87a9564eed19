// One name for one concept: an agent's session in a folder. A chat restores it after a reload, Open Previous
// Session and the Sessions view open it, the history keeps its transcript under it. No `vscode` import: the chat
// protocol (and so the webview) carries it too.
import { z } from 'zod';

/** Which agent's session, and the folder it works in. */
export const SessionTarget = z.object({ agent: z.string(), sessionId: z.string(), cwd: z.string() });
export type SessionTarget = z.infer<typeof SessionTarget>;
