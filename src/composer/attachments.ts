// What is attached to the message being written: files, selections and images, in the order they came, each once.
// A send takes the ones the composer chose; a send that was refused gives them back in front.
import { attachmentView, type Attachment, type NewAttachment } from './prompt';
import type { AttachmentView } from '../chat/protocol';

export class Attachments {
  private items: Attachment[] = [];
  private next = 1;

  /** Adds an attachment unless the same one (kind and label) is already there. */
  add(attachment: NewAttachment): void {
    if (this.items.some((a) => a.kind === attachment.kind && a.label === attachment.label)) return;
    this.items.push({ ...attachment, id: String(this.next++) } as Attachment);
  }

  /** The user agreed to send a large one. */
  confirm(id: string): void {
    this.items = this.items.map((a) => (a.id === id && a.confirm ? ({ ...a, confirm: false } as Attachment) : a));
  }

  remove(id: string): void {
    this.items = this.items.filter((a) => a.id !== id);
  }

  /** Every attachment's id, for a send with everything attached. */
  get ids(): string[] {
    return this.items.map((a) => a.id);
  }

  /** Takes the attachments with these ids out, for a send. */
  take(ids: readonly string[]): Attachment[] {
    const chosen = this.items.filter((a) => ids.includes(a.id));
    this.items = this.items.filter((a) => !ids.includes(a.id));
    return chosen;
  }

  /** Puts back what a refused send took, in front of anything added since. */
  giveBack(taken: readonly Attachment[]): void {
    this.items = [...taken, ...this.items];
  }

  get views(): AttachmentView[] {
    return this.items.map(attachmentView);
  }
}
