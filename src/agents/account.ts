// The signed-in account of a running agent in words, for the status bar's tooltip, Select Agent and the Sessions
// view (unstable `auth/status`, where the agent advertises it). Display only: never logged.
import * as vscode from 'vscode';
import type { AuthAccount, AuthStatus } from '../acp/authStatus';

/** "Signed in as ada@example.com (Fixture Pro)", "Not signed in", …; undefined when there is nothing to say. */
export function accountWords(status: AuthStatus | undefined): string | undefined {
  if (!status) return undefined;
  switch (status.state) {
    case 'unauthenticated':
      return vscode.l10n.t('Not signed in');
    case 'not_required':
      return vscode.l10n.t('No sign-in needed');
    case 'unknown':
      return undefined;
    case 'authenticated': {
      // The accounts in effect, when the agent marks them; else all it listed.
      const active = status.accounts.filter((a) => a.active === true);
      const shown = (active.length > 0 ? active : status.accounts).map(accountName);
      return shown.length > 0 ? vscode.l10n.t('Signed in as {0}', shown.join(', ')) : vscode.l10n.t('Signed in');
    }
  }
}

/** Who (name or email), then what (the account's label and organization). */
function accountName(account: AuthAccount): string {
  const who = account.email ?? account.name;
  const what = [account.label, account.organization].filter((part) => part !== undefined && part !== who);
  return who ? (what.length > 0 ? `${who} (${what.join(', ')})` : who) : what.join(', ');
}
