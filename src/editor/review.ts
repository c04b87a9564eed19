// Review before write (`acp.edits.review: ask`): an agent's write waits while the user looks at the diff of the
// current buffer against the proposed text. Accept and Reject are in the diff editor's title and in a notification;
// the first decision wins. Closing the diff without deciding rejects; the agent cancelling its request withdraws it.
import * as vscode from 'vscode';
import { REVIEW_SCHEME, type DiffDocuments } from './diffs';
import { DisposableStore } from '../common/disposables';

export type ReviewDecision = 'accepted' | 'rejected' | 'closed' | 'withdrawn';

const PENDING_CONTEXT = 'acp.reviewPending';

interface Pending {
  readonly right: vscode.Uri;
  readonly decide: (decision: ReviewDecision) => void;
}

export class EditReviews implements vscode.Disposable {
  private readonly pending: Pending[] = [];
  private readonly disposables: DisposableStore;

  constructor(private readonly diffs: DiffDocuments) {
    this.disposables = new DisposableStore(
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.closed) {
          if (tab.input instanceof vscode.TabInputTextDiff) this.find(tab.input.modified)?.decide('closed');
        }
      }),
    );
  }

  /** Shows the diff and waits for the user. `signal` withdraws the review (the agent cancelled, or went away). */
  async review(agent: string, path: string, current: string | null, proposed: string, signal?: AbortSignal): Promise<ReviewDecision> {
    if (signal?.aborted) return 'withdrawn';
    const diff = this.diffs.prepare({ path, oldText: current, newText: proposed }, REVIEW_SCHEME);
    const right = diff.right;
    const decision = await new Promise<ReviewDecision>((resolve) => {
      const entry: Pending = {
        right,
        decide: (d) => {
          const index = this.pending.indexOf(entry);
          if (index < 0) return; // decided already; a second click does nothing
          this.pending.splice(index, 1);
          signal?.removeEventListener('abort', withdraw);
          void this.updateContext();
          resolve(d);
        },
      };
      const withdraw = () => entry.decide('withdrawn');
      // Tracked before it shows, so an Accept on the diff can never arrive before the review exists.
      this.pending.push(entry);
      void this.updateContext();
      signal?.addEventListener('abort', withdraw, { once: true });
      void this.diffs.open(diff, { preserveFocus: true, preview: false });
      const name = vscode.workspace.asRelativePath(path);
      const message =
        current === null
          ? vscode.l10n.t('{0} wants to create {1}. Review the diff, then accept or reject the edit.', agent, name)
          : vscode.l10n.t('{0} wants to edit {1}. Review the diff, then accept or reject the edit.', agent, name);
      const accept = vscode.l10n.t('Accept');
      const reject = vscode.l10n.t('Reject');
      void vscode.window.showInformationMessage(message, accept, reject).then((pick) => {
        if (pick === accept) entry.decide('accepted');
        if (pick === reject) entry.decide('rejected');
        // Dismissed: the diff editor's title still has both actions.
      });
    });
    if (decision !== 'closed') await this.diffs.close(right);
    return decision;
  }

  decideFromCommand(arg: unknown, decision: 'accepted' | 'rejected'): void {
    const uri = arg instanceof vscode.Uri ? arg : activeDiffRight();
    const entry = (uri && this.find(uri)) ?? (this.pending.length === 1 ? this.pending[0] : undefined);
    if (entry) entry.decide(decision);
    else
      void vscode.window.showInformationMessage(
        uri ? vscode.l10n.t('This diff is not waiting for a decision.') : vscode.l10n.t('Open the diff of the edit to accept or reject it.'),
      );
  }

  private find(uri: vscode.Uri): Pending | undefined {
    const target = uri.toString();
    return this.pending.find((p) => p.right.toString() === target);
  }

  private updateContext(): Thenable<unknown> {
    return vscode.commands.executeCommand('setContext', PENDING_CONTEXT, this.pending.length > 0);
  }

  dispose(): void {
    for (const entry of [...this.pending]) entry.decide('withdrawn');
    this.disposables.dispose();
  }
}

function activeDiffRight(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
}
