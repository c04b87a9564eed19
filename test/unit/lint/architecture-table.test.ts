// ARCHITECTURE.md's "Who may import what" is the map, and the lint is what holds it: this reads the table and the
// lint's computed configuration for a file of each folder of src/, and fails where they say different things (a
// folder without a row, a row the lint does not hold, an import the lint allows that the table does not name).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..', '..', '..');

/** The folders of src/ with host code; `acp` and `common` may be imported by every one of them. */
const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const everywhere = ['acp', 'common'];

interface Row {
  readonly imports: readonly string[];
  readonly types: readonly string[];
}

/** The table's rows by folder: the folders named before "the types of" are imported, those after it typed only. */
function table(): Map<string, Row> {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const section = text.slice(text.indexOf('### Who may import what'));
  const rows = new Map<string, Row>();
  for (const line of section.slice(0, section.indexOf('\n## ')).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = /^`src\/(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (!folder) continue;
    const [plain = '', typed = ''] = (cells[2] ?? '').split('the types of');
    const names = (part: string) =>
      [...part.matchAll(/`(?:src\/)?(\w+)`/g)].map((m) => m[1]!).filter((n) => folders.includes(n) && n !== folder && !everywhere.includes(n));
    rows.set(folder, { imports: names(plain).sort(), types: names(typed).sort() });
  }
  return rows;
}

/** What the lint holds for a file of `folder`: the folders it refuses, and those it allows only as types. */
async function lint(folder: string): Promise<Row> {
  const config = (await new ESLint({ cwd: root }).calculateConfigForFile(join(root, 'src', folder, 'x.ts'))) as {
    rules?: Record<string, unknown>;
  };
  const rule = config.rules?.['@typescript-eslint/no-restricted-imports'] as
    [unknown, { patterns?: { regex?: string; allowTypeImports?: boolean }[] }] | undefined;
  const refused: string[] = [];
  const types: string[] = [];
  for (const pattern of rule?.[1].patterns ?? []) {
    const name = /^\^(?:\\\.\\\.\/)+(\w+)\(/.exec(pattern.regex ?? '')?.[1];
    if (name && folders.includes(name)) (pattern.allowTypeImports ? types : refused).push(name);
  }
  const imports = folders.filter((f) => f !== folder && !everywhere.includes(f) && !refused.includes(f) && !types.includes(f));
  return { imports: imports.sort(), types: types.sort() };
}

describe("ARCHITECTURE.md's import table and the lint", function () {
  this.timeout(60_000);
  const rows = table();

  it('has a row for every folder of src/, and no row for a folder that is not there', () => {
    assert.deepEqual([...rows.keys()].sort(), folders);
  });

  for (const folder of folders.filter((f) => f !== 'acp')) {
    it(`holds the row of src/${folder} as written`, async () => {
      const written = rows.get(folder);
      assert.ok(written, `ARCHITECTURE.md has no row for src/${folder}`);
      assert.deepEqual(await lint(folder), written, `the lint of src/${folder} and its row in ARCHITECTURE.md differ`);
    });
  }
});
