// `npm run lint` and `npm run format`. The lint toolchain has its own package.json and lock in this folder (see its
// description for why), installed here on first use and whenever its lock changes, like the test harness installs
// code-server.
//
//   node scripts/lint/run.mjs lint [eslint args...]     ESLint over the repository
//   node scripts/lint/run.mjs format [--check]         Prettier over the repository
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const installed = join(here, 'node_modules', '.package-lock.json');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** The lock as npm last installed it here matches the lock in the repository. */
function upToDate() {
  if (!existsSync(installed)) return false;
  const want = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8')).packages ?? {};
  const have = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
  return Object.keys(want).every((key) => key === '' || want[key]?.version === have[key]?.version);
}

if (!upToDate()) {
  console.log('[lint] installing the lint toolchain (scripts/lint/package-lock.json)');
  const status = run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], here);
  if (status !== 0) process.exit(status);
}

const [mode = 'lint', ...rest] = process.argv.slice(2);
const bin = (pkg, file) => join(here, 'node_modules', pkg, file);
const targets = ['src', 'webview', 'test', 'scripts', 'esbuild.mjs'];
if (mode === 'lint') {
  process.exit(
    run(
      process.execPath,
      [bin('eslint', 'bin/eslint.js'), '--config', join(here, 'eslint.config.mjs'), '--max-warnings', '0', ...rest, ...targets],
      root,
    ),
  );
} else if (mode === 'format') {
  const check = rest.includes('--check');
  process.exit(
    run(
      process.execPath,
      [
        bin('prettier', 'bin/prettier.cjs'),
        check ? '--check' : '--write',
        '--log-level',
        'warn',
        '--ignore-path',
        join(here, '.prettierignore'),
        ...targets,
      ],
      root,
    ),
  );
} else {
  console.error(`[lint] unknown mode ${mode}: use lint or format`);
  process.exit(2);
}
