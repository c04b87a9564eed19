// Identifiers that both the entry point and the core use. This module imports nothing, so the entry point stays
// small.

/** The chat panel's webview type (its serializer brings chats back after a reload). */
export const CHAT_VIEW_TYPE = 'acp.chat';

/** The Sessions tree view in the ACP activity-bar container. */
export const SESSIONS_VIEW_ID = 'acp.sessions';

/** The extension's settings section. */
export const SECTION = 'acp';

/** The chat view in the secondary side bar (a webview view). */
export const CHAT_SIDE_BAR_VIEW_ID = 'acp.chatView';
