// What a plan approval's options do, in plain words. The agents' names for them do not say it all: that "clear
// context" forgets the conversation, or what "auto mode" lets the agent do. A known agent's options are read by their
// id (acp/quirks.ts `planOptions`, said by the host as each option's `effect`); any other agent's by their kind.
import type { PlanOptionEffect } from '../../src/chat/protocol';
import { t } from '../l10n';

export function planOptionHint(effect: PlanOptionEffect | undefined, kind: string): string {
  const cleared = t('Approve the plan and clear the context: the conversation so far is forgotten, and the agent starts again from the plan alone.');
  switch (effect) {
    case 'approve':
      return t('Approve the plan: the agent leaves plan mode and starts on it.');
    case 'approveAsk':
      return t('Approve the plan: the agent leaves plan mode and asks you before each edit and command.');
    case 'approveAcceptEdits':
      return t('Approve the plan: the agent leaves plan mode, edits files without asking, and asks before commands.');
    case 'approveAuto':
      return t('Approve the plan: the agent leaves plan mode in auto mode, where it decides itself what to ask you.');
    case 'approveBypass':
      return t('Approve the plan: the agent leaves plan mode and edits files and runs commands without asking you.');
    case 'approveAcceptEditsClearContext':
      return `${cleared} ${t('It edits files without asking, and asks before commands.')}`;
    case 'approveAutoClearContext':
      return `${cleared} ${t('It works in auto mode, where it decides itself what to ask you.')}`;
    case 'approveBypassClearContext':
      return `${cleared} ${t('It edits files and runs commands without asking you.')}`;
    case 'keepPlanning':
      return t('Keep planning: nothing changes, and the agent waits to hear what to change in the plan.');
    default:
      return kind.startsWith('allow')
        ? t('Approve the plan: the agent leaves plan mode and starts on it.')
        : t('Keep planning: the agent stays in plan mode.');
  }
}
