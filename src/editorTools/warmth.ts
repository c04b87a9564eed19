// A language service that has just started answers as if the workspace were empty: a JSON file no editor shows has
// no problems, TypeScript's syntax server knows only the declaration of a function, a Markdown file has no headings.
// An agent takes such answers as facts. So before a tool answers about a document, its language's extensions are
// activated (within a bound); while a language is new to the tools, an empty answer is asked again as its service
// loads, and what still cannot be known is said in the answer, never given as the truth.
import * as vscode from 'vscode';

/** How long the extensions of a language get to activate. */
const ACTIVATE_MS = 10_000;
/** For how long after the tools first touch a language its service is taken to be loading. */
const WARMING_MS = 60_000;
/** How long an empty answer is asked again while the service loads (a tool has 30 s in all). */
const SETTLE_MS = 20_000;
/** What a tool that settles its answer takes at most, within the 30 s a tool has (tools.ts). */
const ANSWER_BY_MS = 24_000;
/** How long get_diagnostics waits for a language service to report on a file it just opened. */
const FIRST_REPORT_MS = 10_000;

const firstTouched = new Map<string, number>();

/** Activates the extensions of `document`'s language (bounded); whether its service is still new to the tools. */
async function warmUp(document: vscode.TextDocument): Promise<{ warming: boolean }> {
  const language = document.languageId;
  const first = firstTouched.get(language) ?? Date.now();
  firstTouched.set(language, first);
  const pending = vscode.extensions.all.filter((e) => !e.isActive && serves(e, language));
  if (pending.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending.map((e) => e.activate())), new Promise((resolve) => (timer = setTimeout(resolve, ACTIVATE_MS)))]);
    clearTimeout(timer);
  }
  return { warming: Date.now() - first < WARMING_MS };
}

/** Whether extension `e` activates for, or contributes, `language`. */
function serves(e: vscode.Extension<unknown>, language: string): boolean {
  const manifest = e.packageJSON as { activationEvents?: unknown; contributes?: { languages?: unknown } } | undefined;
  const events = Array.isArray(manifest?.activationEvents) ? manifest.activationEvents : [];
  const languages = Array.isArray(manifest?.contributes?.languages) ? manifest.contributes.languages : [];
  return events.includes(`onLanguage:${language}`) || languages.some((l: unknown) => (l as { id?: unknown } | null)?.id === language);
}

/**
 * `ask`'s answer about `document`: while its language's service is new, an answer that `looksEmpty` is asked again,
 * after each change of the Problems or a second, until it is not or SETTLE_MS have passed. `note` says when the
 * answer may still be incomplete.
 */
export async function settledAnswer<T>(
  document: vscode.TextDocument,
  ask: () => Thenable<T>,
  looksEmpty: (answer: T) => boolean,
  abandoned: AbortSignal,
): Promise<{ answer: T; note?: string }> {
  // Within the tool's own 30 s, whatever activation and the first answer took: a late answer with its note beats none.
  const deadline = Date.now() + ANSWER_BY_MS;
  const { warming } = await warmUp(document);
  let answer = await ask();
  if (!warming || !looksEmpty(answer)) return { answer };
  const until = Math.min(Date.now() + SETTLE_MS, deadline);
  while (looksEmpty(answer) && Date.now() < until && !abandoned.aborted) {
    await nextChange(Math.min(1000, until - Date.now()), abandoned);
    // At most four times a second, however often the Problems change.
    await new Promise((resolve) => setTimeout(resolve, 250));
    answer = await ask();
  }
  return looksEmpty(answer) ? { answer, note: stillLoading(document) } : { answer };
}

/**
 * The Problems of `document`, once a language service has reported on it: its diagnostics now, else (a document the
 * tool just opened, or a language still new) the first change of them within FIRST_REPORT_MS. `note` says when no
 * service reported, so that an empty list is not taken as none.
 */
export async function reportedDiagnostics(
  document: vscode.TextDocument,
  fresh: boolean,
  abandoned: AbortSignal,
): Promise<{ diagnostics: readonly vscode.Diagnostic[]; note?: string }> {
  const { warming } = await warmUp(document);
  const uri = document.uri;
  const now = vscode.languages.getDiagnostics(uri);
  // An open document of a language whose service has long been running: what it shows is what the service found.
  if (now.length > 0 || (!fresh && !warming) || abandoned.aborted) return { diagnostics: now };
  const reported = await new Promise<boolean>((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      listener.dispose();
      abandoned.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), FIRST_REPORT_MS);
    const listener = vscode.languages.onDidChangeDiagnostics((e) => e.uris.some((u) => u.toString() === uri.toString()) && done(true));
    abandoned.addEventListener('abort', onAbort, { once: true });
  });
  const diagnostics = vscode.languages.getDiagnostics(uri);
  if (reported || diagnostics.length > 0) return { diagnostics };
  const shown = vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()),
  );
  return {
    diagnostics,
    note: shown
      ? `No language service reported on this file within ${FIRST_REPORT_MS / 1000} s (${stillLoading(document)}): an empty list does not mean it has no problems.`
      : `No language service reported on this file within ${FIRST_REPORT_MS / 1000} s. Some check only files open in an editor, and no editor has this one open; or the service is still loading: an empty list does not mean it has no problems.`,
  };
}

function stillLoading(document: vscode.TextDocument): string {
  return `the ${document.languageId} language service may still be loading the project: the answer may be incomplete`;
}

/** The next change of the Problems, or `ms`, or the call abandoned. */
function nextChange(ms: number, abandoned: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      listener.dispose();
      abandoned.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const listener = vscode.languages.onDidChangeDiagnostics(done);
    abandoned.addEventListener('abort', done, { once: true });
  });
}
