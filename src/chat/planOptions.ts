// What a plan approval's options do, in plain words. The agents' names for them do not say it all: that "clear
// context" forgets the conversation, or what "auto mode" lets the agent do. A known agent's options are read by their
// id (acp/quirks.ts `planOptions`); any other agent's by their kind.
import * as vscode from 'vscode';
import type { PlanOptionEffect } from '../acp/quirks';

export function planOptionHint(effect: PlanOptionEffect | undefined, kind: string): string {
  const cleared = vscode.l10n.t(
    'Approve the plan and clear the context: the conversation so far is forgotten, and the agent starts again from the plan alone.',
  );
  switch (effect) {
    case 'approve':
      return vscode.l10n.t('Approve the plan: the agent leaves plan mode and starts on it.');
    case 'approveAsk':
      return vscode.l10n.t('Approve the plan: the agent leaves plan mode and asks you before each edit and command.');
    case 'approveAcceptEdits':
      return vscode.l10n.t('Approve the plan: the agent leaves plan mode, edits files without asking, and asks before commands.');
    case 'approveAuto':
      return vscode.l10n.t('Approve the plan: the agent leaves plan mode in auto mode, where it decides itself what to ask you.');
    case 'approveBypass':
      return vscode.l10n.t('Approve the plan: the agent leaves plan mode and edits files and runs commands without asking you.');
    case 'approveAcceptEditsClearContext':
      return `${cleared} ${vscode.l10n.t('It edits files without asking, and asks before commands.')}`;
    case 'approveAutoClearContext':
      return `${cleared} ${vscode.l10n.t('It works in auto mode, where it decides itself what to ask you.')}`;
    case 'approveBypassClearContext':
      return `${cleared} ${vscode.l10n.t('It edits files and runs commands without asking you.')}`;
    case 'keepPlanning':
      return vscode.l10n.t('Keep planning: nothing changes, and the agent waits to hear what to change in the plan.');
    default:
      return kind.startsWith('allow')
        ? vscode.l10n.t('Approve the plan: the agent leaves plan mode and starts on it.')
        : vscode.l10n.t('Keep planning: the agent stays in plan mode.');
  }
}
