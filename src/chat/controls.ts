// The chat's controls that its owner sets and answers, not its session: the permission level. The view shows what
// the owner last set; what the user picks goes to the owner's handler (src/chats/chatSession.ts), which sets it back.
import { ASK_ONLY, type PermissionLevelName, type PermissionLevelView } from './protocol';

export class ChatControls {
  private levelView: PermissionLevelView = ASK_ONLY;
  private levelHandler: ((level: PermissionLevelName) => Promise<void>) | undefined;

  constructor(private readonly changed: () => void) {}

  get permissionLevel(): PermissionLevelView {
    return this.levelView;
  }

  /** The owner says what the chat's level is now, and what the user may pick. */
  showPermissionLevel(view: PermissionLevelView): void {
    this.levelView = view;
    this.changed();
  }

  /** Who sets the level the user picks, from now on. */
  handlePermissionLevel(handler: (level: PermissionLevelName) => Promise<void>): { dispose(): void } {
    this.levelHandler = handler;
    return {
      dispose: () => {
        if (this.levelHandler === handler) this.levelHandler = undefined;
      },
    };
  }

  /** The user picked a level: only one offered is set. */
  async setPermissionLevel(level: PermissionLevelName): Promise<void> {
    if (!this.levelView.offered.includes(level)) return;
    await this.levelHandler?.(level);
  }
}
