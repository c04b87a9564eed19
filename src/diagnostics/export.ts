// "ACP: Export Diagnostics…": one Markdown file with versions, settings, agents and the recent log, for a bug report.
// It also teaches the log's scrubber which values in the settings are secret, now and on every settings change.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { Logger } from '../acp/log';
import { SecretScrubber, secretsIn } from '../acp/redact';
import type { AgentSnapshot } from '../agents/manager';
import { SECTION } from '../settings/config';
import { defaultFileName, formatReport, RecentLines, type DiagnosticsFacts, type EditorToolsFacts } from './report';
import type { LogSinks } from '../common/log';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';

/** What the export reads from the extension's manifest: its version and the names of its settings. */
const Manifest = z.object({
  version: z.string().catch('unknown'),
  contributes: z.object({ configuration: z.object({ properties: z.record(z.string(), z.unknown()) }) }).optional(),
});

/** A target given to the command by another extension: a Uri, or what one looks like after serialization. */
const UriLike = z.object({ scheme: z.string().min(1), path: z.string().min(1), authority: z.string().optional() });

export interface DiagnosticSinks extends LogSinks {
  readonly scrubber: SecretScrubber;
  readonly recent: RecentLines;
}

/** What the logger writes through: the scrubber (taught by Diagnostics) and the last 1000 lines. */
export function createLogSinks(): DiagnosticSinks {
  return { scrubber: new SecretScrubber(), recent: new RecentLines(1000) };
}

export class Diagnostics implements vscode.Disposable {
  private readonly version: string;
  private readonly settingNames: readonly string[];
  private readonly disposables: DisposableStore;

  constructor(
    context: vscode.ExtensionContext,
    /** The logger's scrubber and ring of recent lines. */
    private readonly sinks: DiagnosticSinks,
    private readonly log: Logger,
    /** The agents' facts at the time of the export. */
    private readonly agents: () => readonly AgentSnapshot[],
    /** The editor tools' servers at the time of the export. */
    private readonly editorTools?: () => EditorToolsFacts,
  ) {
    const manifest = Manifest.safeParse(context.extension.packageJSON);
    this.version = manifest.success ? manifest.data.version : 'unknown';
    const properties = manifest.success ? Object.keys(manifest.data.contributes?.configuration.properties ?? {}) : [];
    this.settingNames = properties.filter((name) => name.startsWith(`${SECTION}.`)).map((name) => name.slice(SECTION.length + 1));
    this.learnSecrets();
    this.disposables = new DisposableStore(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SECTION)) this.learnSecrets();
      }),
    );
  }

  /**
   * Writes the report to `target` (a Uri, for other extensions and tests) or where the user chooses, and opens it.
   * Resolves with where it was written, or undefined when nothing was.
   */
  async export(target?: unknown): Promise<vscode.Uri | undefined> {
    let uri: vscode.Uri | undefined;
    if (target instanceof vscode.Uri) {
      uri = target;
    } else if (target === undefined) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
      uri = await vscode.window.showSaveDialog({
        title: vscode.l10n.t('Export ACP Diagnostics'),
        saveLabel: vscode.l10n.t('Export'),
        defaultUri: vscode.Uri.joinPath(folder, defaultFileName(new Date())),
        filters: { Markdown: ['md'] },
      });
      if (!uri) return undefined;
    } else {
      const like = UriLike.safeParse(target);
      if (!like.success) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('ACP: Export Diagnostics was given something that is not a file to write; run it from the Command Palette to choose one.'),
        );
        return undefined;
      }
      uri = vscode.Uri.from(like.data);
    }
    const text = formatReport(this.facts(), this.sinks.scrubber);
    try {
      await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not write the diagnostics to {0}: {1}', uri.fsPath, failureText(error)));
      return undefined;
    }
    this.log.info(`[diagnostics] exported to ${uri.fsPath}`);
    await vscode.window.showTextDocument(uri, { preview: false });
    return uri;
  }

  private facts(): DiagnosticsFacts {
    const config = vscode.workspace.getConfiguration(SECTION);
    const settings: Record<string, unknown> = {};
    const settingSources: Record<string, string> = {};
    for (const name of this.settingNames) {
      const key = `${SECTION}.${name}`;
      settings[key] = config.get<unknown>(name);
      const layers = config.inspect<unknown>(name);
      const source =
        layers?.workspaceFolderValue !== undefined
          ? 'folder settings'
          : layers?.workspaceValue !== undefined
            ? 'workspace settings'
            : layers?.globalValue !== undefined
              ? 'user settings'
              : undefined;
      if (source) settingSources[key] = source;
    }
    const electron = process.versions['electron'];
    return {
      exportedAt: new Date(),
      environment: {
        extensionVersion: this.version,
        vscodeVersion: vscode.version,
        app: `${vscode.env.appName}, ${vscode.env.appHost}, ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'} UI`,
        platform: `${process.platform} ${process.arch} (${os.type()} ${os.release()})`,
        node: `${process.versions.node}${electron ? ` (Electron ${electron})` : ''}`,
        remoteName: vscode.env.remoteName,
        workspaceTrusted: vscode.workspace.isTrusted,
        workspaceFolders: vscode.workspace.workspaceFolders?.length ?? 0,
      },
      settings,
      settingSources,
      agents: this.agents(),
      recentLog: this.sinks.recent.snapshot(),
      recentLogCapacity: this.sinks.recent.capacity,
      ...(this.editorTools ? { editorTools: this.editorTools() } : {}),
    };
  }

  /** Every value that is secret by its place in any layer of the `acp` settings (agents' env, MCP servers' headers…). */
  private learnSecrets(): void {
    const config = vscode.workspace.getConfiguration(SECTION);
    for (const name of this.settingNames) {
      const layers = config.inspect<unknown>(name);
      if (!layers) continue;
      for (const value of [layers.globalValue, layers.workspaceValue, layers.workspaceFolderValue]) {
        if (value !== undefined) this.sinks.scrubber.learn(secretsIn(value));
      }
    }
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
