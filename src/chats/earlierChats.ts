// `@chat`: the earlier chats of this workspace that a message can carry, read from the kept transcripts (the
// conversation's messages, thoughts and tool calls by title; never the attachments' content), as Markdown. The
// chat that asks is left out of its own list.
import type { ChatKey, EarlierChat, EarlierChats } from '../composer/chatMention';
import { exportMarkdown } from '../history/exportMarkdown';
import { summarize, summaryLabel } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';

/** At most this many chats are offered, the most recently updated first. */
const OFFERED = 200;

export class TranscriptChats implements EarlierChats {
  constructor(private readonly store: Pick<TranscriptStore, 'list' | 'read'>) {}

  async list(except: ChatKey | undefined): Promise<readonly EarlierChat[]> {
    return (await this.store.list())
      .filter((s) => s.sessionId !== except?.sessionId || s.agent !== except.agent)
      .slice(0, OFFERED)
      .map((s) => ({ agent: s.agent, sessionId: s.sessionId, title: summaryLabel(s), updatedAt: s.updatedAt }));
  }

  async markdown(chat: ChatKey): Promise<string | undefined> {
    const transcript = await this.store.read(chat.agent, chat.sessionId);
    if (!transcript) return undefined;
    return exportMarkdown({
      title: summaryLabel(summarize(transcript)),
      agent: transcript.agent,
      cwd: transcript.cwd,
      exportedAt: new Date(),
      earlier: transcript.entries,
    });
  }
}
