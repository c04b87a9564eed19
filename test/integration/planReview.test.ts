// Plans reviewed in an editor, in a real extension host: a plan approval as claude-agent-acp asks it knows what each
// of its options does, Open Plan in Editor shows the plan as Markdown beside the chat (read-only: typed into, it says so, in the UI test), and the approval is
// still the user's to answer (a permission level never answers it). The comments' way back as feedback is driven from
// the keyboard in test/ui/accessibility.test.ts, where the comment widget is.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { PLAN_TEXT } from '../fixtures/lib/planScenarios';
import { waitFor, within } from '../lib/wait';
import { agentText, closeAllChats, newChat, useFixtureAgent } from './lib/fixture';

describe('plans reviewed in an editor', function () {
  this.timeout(60_000);

  beforeEach(async () => {
    await useFixtureAgent('planReview', { name: 'Planner' });
  });

  afterEach(async () => {
    await closeAllChats();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens the plan of an approval as Markdown, and says what each answer does', async () => {
    const chat = await newChat();
    const turn = chat.send('plan the fix');
    const approval = await waitFor(() => chat.permissions[0], { what: 'the plan approval' });
    assert.ok(approval.planApproval?.canOpen);
    // What each of claude-agent-acp's options does, by its id; the chat says it in words (test/ui/accessibility.test.ts).
    assert.deepEqual(
      approval.options.map((o) => [o.optionId, o.effect]),
      [
        ['exit-plan-default', 'approveAsk'],
        ['exit-plan-clear-accept-edits', 'approveAcceptEditsClearContext'],
        ['exit-plan-accept-edits', 'approveAcceptEdits'],
        ['reject', 'keepPlanning'],
      ],
    );

    await chat.openPlanReview(approval.id);
    const editor = await waitFor(
      () => (vscode.window.activeTextEditor?.document.uri.scheme === 'acp-plan' ? vscode.window.activeTextEditor : undefined),
      {
        what: 'the plan in an editor',
      },
    );
    assert.equal(editor.document.getText(), PLAN_TEXT);
    assert.equal(editor.document.languageId, 'markdown');

    // Still the user's to answer: the chat's level does not answer a plan approval.
    assert.equal(chat.permissions.length, 1);
    await chat.answerPermission(approval.id, 'exit-plan-default');
    assert.equal(await within(turn, 10_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), /outcome:exit-plan-default/);
  });
});
