// axe-core in a chat's document: every violation, with the first nodes of each and why they fail.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { FrameLocator } from 'playwright-core';

/** axe-core, as the page gets it: its source, evaluated in the chat's own document. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/** Every axe violation in the chat's document, with the first nodes of each and why they fail. */
export async function scan(chat: FrameLocator): Promise<Violation[]> {
  // An expression, not a function: evaluated as the debugger does, so the page's CSP (no eval) does not stop axe.
  const run = `(async () => {
    ${AXE_SOURCE}
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 6).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' ')),
    }));
  })()`;
  const violations = (await chat.locator('body').evaluate(run)) as Violation[] | undefined;
  assert.ok(Array.isArray(violations), 'axe ran in the chat and answered');
  return violations;
}

export function report(where: string, violations: readonly Violation[]): string {
  return `${where}: ${violations.length} violation(s)\n${violations
    .map((v) => `- ${v.id} (${v.impact ?? 'unknown'}): ${v.help}\n    ${v.nodes.join('\n    ')}`)
    .join('\n')}`;
}
