// Each kind of tool call, in one table for the chat, the notifications and the permission rules. Pure: shared by
// the host and the webview (through chat/protocol.ts).
import type { ToolKind } from './schema.gen';

export interface ToolKindInfo {
  /** The codicon the chat shows on its card. */
  readonly icon: string;
  /** What a notification and a permission request call it ("{agent} asks permission — Run command: …"). */
  readonly label: string;
  /** What a rule for it covers ("Always allow Gemini: running commands"). */
  readonly activity: string;
}

/**
 * Each kind of tool call, in one table for the chat, the notifications and the permission rules. The English words
 * are message keys: the host and the webview translate them where they are shown (`t(toolKind(k).label)`).
 */
const TOOL_KINDS: Readonly<Record<ToolKind, ToolKindInfo>> = {
  read: { icon: 'file', label: 'Read', activity: 'reading files' },
  edit: { icon: 'edit', label: 'Edit', activity: 'editing files' },
  delete: { icon: 'trash', label: 'Delete', activity: 'deleting files' },
  move: { icon: 'arrow-swap', label: 'Move', activity: 'moving files' },
  search: { icon: 'search', label: 'Search', activity: 'searching' },
  execute: { icon: 'terminal', label: 'Run command', activity: 'running commands' },
  think: { icon: 'lightbulb', label: 'Think', activity: 'thinking' },
  fetch: { icon: 'globe', label: 'Fetch', activity: 'fetching from the web' },
  switch_mode: { icon: 'settings-gear', label: 'Switch mode', activity: 'switching modes' },
  other: { icon: 'tools', label: 'Tool', activity: 'other tools' },
};

/** A kind's row; a kind this client does not know is shown as `other`. */
export function toolKind(kind: string): ToolKindInfo {
  return Object.hasOwn(TOOL_KINDS, kind) ? TOOL_KINDS[kind as ToolKind] : TOOL_KINDS.other;
}
