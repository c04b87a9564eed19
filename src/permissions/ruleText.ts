// The words for a permission rule. The rules themselves (rules.ts) are facts: agent, kind, command, decision. The
// host words them here, in the user's language for the notifications and Manage Rules (vscode.l10n.t) and in
// English for the log. No `vscode` import, so the wording is unit-tested.
import type { Translate } from '../acp/text';
import { toolKind } from '../acp/toolKinds';
import type { PermissionRule } from './rules';

/** English, with `{0}`-style placeholders filled in: the log's translator. */
export const english: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (whole, n: string) => (Number(n) < args.length ? String(args[Number(n)]) : whole));

/** "Always allow Gemini: running \u201cnpm test\u201d", in the words `t` gives. */
export function describeRule(rule: PermissionRule, t: Translate): string {
  const what = rule.title !== undefined ? t('running \u201c{0}\u201d', rule.title) : t(toolKind(rule.kind).activity);
  return rule.decision === 'allow' ? t('Always allow {0}: {1}', rule.agent, what) : t('Always reject {0}: {1}', rule.agent, what);
}
