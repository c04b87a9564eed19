import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('ACP', { log: true });
  context.subscriptions.push(
    channel,
    vscode.commands.registerCommand('acp.showLog', () => channel.show(true)),
  );
  const version = String(context.extension.packageJSON.version ?? 'unknown');
  channel.info(`[extension] activated ${version}`);
}

export function deactivate(): void {}
