// `acp.editorTools.*`: whether sessions get the editor's tools (the `vscode` MCP server), and which of them. Both are
// read from the user's own settings only: a workspace must not hand its agents more of the editor than the user did.
import * as vscode from 'vscode';
import { SECTION } from '../ids';

export interface EditorToolsSettings {
  readonly enabled: boolean;
  /** The tools allowed, or undefined for all. */
  readonly tools: ReadonlySet<string> | undefined;
}

export function readEditorToolsSettings(): EditorToolsSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const enabled = config.inspect<unknown>('editorTools.enabled')?.globalValue !== false;
  const tools = config.inspect<unknown>('editorTools.tools')?.globalValue;
  return {
    enabled,
    tools: Array.isArray(tools) ? new Set(tools.filter((t): t is string => typeof t === 'string')) : undefined,
  };
}
