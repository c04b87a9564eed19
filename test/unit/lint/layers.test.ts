// Lint holds ARCHITECTURE.md's "Who may import what": each row is proven here once, by a deliberately bad import
// linted as if it were a file of that folder (and a good one beside it, so a rule that refuses everything fails).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..', '..', '..');

/** One row: a file of the folder, an import it may not make, and one it may. */
interface Row {
  readonly file: string;
  readonly bad: string;
  readonly good: string;
  /** What the error says. */
  readonly says: RegExp;
}

const ROWS: readonly Row[] = [
  {
    file: 'src/acp/x.ts',
    bad: `import { checkPath } from '../common/paths';`,
    good: `import { errorMessage } from './errors';`,
    says: /protocol core/,
  },
  { file: 'src/acp/y.ts', bad: `import * as vscode from 'vscode';`, good: `import type * as S from './schema.gen';`, says: /never imports vscode/ },
  {
    file: 'src/common/x.ts',
    bad: `import { readAgentSettings } from '../settings/config';`,
    good: `import { errorMessage } from '../acp/errors';`,
    says: /src\/common may not import src\/settings/,
  },
  {
    file: 'src/settings/x.ts',
    bad: `import { FileService } from '../editor/files';`,
    good: `import type { FileService } from '../editor/files';`,
    says: /only the types of src\/editor/,
  },
  {
    file: 'src/editor/x.ts',
    bad: `import { ChatPanel } from '../chat/panel';`,
    good: `import { checkPath } from '../common/paths';`,
    says: /src\/editor may not import src\/chat/,
  },
  {
    file: 'src/permissions/x.ts',
    bad: `import { toolKind } from '../chat/protocol';`,
    good: `import { toolKind } from '../acp/toolKinds';`,
    says: /src\/permissions may not import src\/chat/,
  },
  {
    file: 'src/diagnostics/x.ts',
    bad: `import { AgentManager } from '../agents/manager';`,
    good: `import type { AgentManager } from '../agents/manager';`,
    says: /only the types of src\/agents/,
  },
  {
    file: 'src/composer/x.ts',
    bad: `import { ChatModel } from '../chat/chatModel';`,
    good: `import type { FileMatch } from '../chat/protocol';`,
    says: /only the types of src\/chat/,
  },
  {
    file: 'src/composer/y.ts',
    bad: `import type { Chats } from '../chats/chats';`,
    good: `import type { ShellHistory } from '../editor/shellHistory';`,
    says: /src\/composer may not import src\/chats/,
  },
  {
    file: 'src/chat/x.ts',
    bad: `import type { Chats } from '../chats/chats';`,
    good: `import { FollowAgent } from '../editor/follow';`,
    says: /src\/chat may not import src\/chats/,
  },
  {
    file: 'src/chat/shared/x.ts',
    bad: `import { Checkpoints } from '../../checkpoints/checkpoints';`,
    good: `import { z } from 'zod';`,
    says: /src\/chat may not import src\/checkpoints/,
  },
  {
    file: 'src/checkpoints/x.ts',
    bad: `import { ChatPanel } from '../chat/panel';`,
    good: `import type { EntryView } from '../chat/protocol';`,
    says: /only the types of src\/chat/,
  },
  {
    file: 'src/agents/x.ts',
    bad: `import { Chats } from '../chats/chats';`,
    good: `import type { Chats } from '../chats/chats';`,
    says: /only the types of src\/chats/,
  },
  {
    file: 'src/registry/x.ts',
    bad: `import { Chats } from '../chats/chats';`,
    good: `import type { AgentManager } from '../agents/manager';`,
    says: /src\/registry may not import src\/chats/,
  },
  {
    file: 'src/history/x.ts',
    bad: `import { Chats } from '../chats/chats';`,
    good: `import { shortPath } from '../chat/view';`,
    says: /src\/history may not import src\/chats/,
  },
  {
    file: 'src/chats/x.ts',
    bad: `import { SessionsView } from '../sessions/sessionsView';`,
    good: `import { TranscriptStore } from '../history/transcripts';`,
    says: /src\/chats may not import src\/sessions/,
  },
  {
    file: 'src/sessions/x.ts',
    bad: `import { activate } from '../extension';`,
    good: `import { Chats } from '../chats/chats';`,
    says: /entry point/,
  },
  {
    file: 'src/worktrees/x.ts',
    bad: `import { SessionsView } from '../sessions/sessionsView';`,
    good: `import { handleOrNone } from '../chats/handle';`,
    says: /src\/worktrees may not import src\/sessions/,
  },
  {
    file: 'src/sessions/y.ts',
    bad: `import { WorktreeRecords } from '../worktrees/records';`,
    good: `import type { WorktreeRecords } from '../worktrees/records';`,
    says: /only the types of src\/worktrees/,
  },
  {
    file: 'src/editorTools/x.ts',
    bad: `import { Chats } from '../chats/chats';`,
    good: `import { readEditorToolsSettings } from '../settings/editorTools';`,
    says: /src\/editorTools may not import src\/chats/,
  },
  { file: 'src/ids.ts', bad: `import { errorMessage } from './acp/errors';`, good: `export const X = 'x';`, says: /imports nothing/ },
  {
    file: 'webview/x.ts',
    bad: `import { ChatPanel } from '../src/chat/panel';`,
    good: `import { WINDOW } from './state';`,
    says: /only through the shared protocol module/,
  },
];

describe('lint holds the map of who may import what', function () {
  this.timeout(60_000);
  // The files linted here do not exist: the cycle check, which reads the files imported, has nothing to read.
  const eslint = new ESLint({ cwd: root, overrideConfig: [{ rules: { 'import/no-cycle': 'off' } }] });

  async function errors(code: string, filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\nexport const used = [];\n`, { filePath: join(root, filePath) });
    return (result?.messages ?? []).filter((m) => /restricted-imports/.test(m.ruleId ?? '')).map((m) => m.message);
  }

  for (const row of ROWS) {
    it(`${row.file}: ${row.bad}`, async () => {
      const bad = await errors(row.bad, row.file);
      assert.ok(
        bad.some((m) => row.says.test(m)),
        `the bad import is refused with ${String(row.says)}; got ${JSON.stringify(bad)}`,
      );
      assert.deepEqual(await errors(row.good, row.file), [], 'the good import beside it is not');
    });
  }

  it('refuses a file of src/ past 450 lines, and not one of 450', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n');
    const ruleIds = async (code: string) =>
      ((await eslint.lintText(code, { filePath: join(root, 'src/common/long.ts') }))[0]?.messages ?? []).map((m) => m.ruleId);
    assert.ok((await ruleIds(lines(451))).includes('max-lines'));
    assert.ok(!(await ruleIds(lines(450))).includes('max-lines'));
  });
});
