// `npm run agents:latest`: which of the adapters pinned in test/agents/pins.ts have newer releases on npm. Asks the
// registry through npm itself (`npm view <package> version`), and prints one line per adapter.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AGENT_PINS } from '../agents/pins';

const run = promisify(execFile);

async function latest(name: string): Promise<string> {
  const npm = process.env['npm_execpath'];
  const [file, args] = npm ? [process.execPath, [npm, 'view', name, 'version']] : ['npm', ['view', name, 'version']];
  const { stdout } = await run(file, args, { timeout: 60_000 });
  return stdout.trim();
}

async function main(): Promise<void> {
  let behind = 0;
  for (const [name, pinned] of Object.entries(AGENT_PINS)) {
    try {
      const newest = await latest(name);
      const same = newest === pinned;
      if (!same) behind++;
      process.stdout.write(`${name.padEnd(40)} pinned ${pinned.padEnd(10)} ${same ? 'current' : `newer: ${newest}`}\n`);
    } catch (error) {
      process.stdout.write(
        `${name.padEnd(40)} pinned ${pinned.padEnd(10)} could not ask npm: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
    }
  }
  process.stdout.write(
    behind > 0 ? `\n${behind} adapter(s) have newer releases: bump test/agents/pins.ts and run npm run test:agents.\n` : '\nAll pins are current.\n',
  );
}

void main();
