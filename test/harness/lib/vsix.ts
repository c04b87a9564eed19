// The VSIX as `npm run package` builds it, made from a staging copy of the repository so that the production build
// lands in the staging folder's dist/ and never replaces the working tree's (the other UI tests run that one); and
// code-server's own `--install-extension`, the way users install it.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { Toolchain } from './setup';

export interface Vsix {
  readonly file: string;
  readonly bytes: number;
  /** The entries of the archive, in its order. */
  readonly entries: readonly VsixEntry[];
  /** How long building it took. */
  readonly ms: number;
}

interface VsixEntry {
  readonly name: string;
  /** Uncompressed size. */
  readonly size: number;
}

/** Folders whose files go into the package: copied (vsce takes a linked folder for a file). Other folders are linked. */
const COPIED = new Set(['media']);
/** Never staged: the build's outputs and the repository's own state. */
const SKIPPED = new Set(['.git', 'dist', 'out', 'test-output']);

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly scripts: Record<string, string>;
}

/** The arguments of the `package` script after `vsce`, so the test packages exactly as `npm run package` does. */
function packageArgs(manifest: Manifest): string[] {
  const words = (manifest.scripts['package'] ?? '').trim().split(/\s+/);
  if (words[0] !== 'vsce' || words[1] !== 'package')
    throw new Error(`the "package" script should run "vsce package …", not "${manifest.scripts['package']}"`);
  return words.slice(1);
}

const vsceCli = (repoRoot: string) => join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');

function run(command: string, args: readonly string[], cwd: string, what: string, env?: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${what} failed (${signal ?? `exit ${code}`}):\n${output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')}`),
        );
    });
  });
}

/**
 * Builds the VSIX with @vscode/vsce (its CLI, with the `package` script's options) into `outDir`. The staging folder
 * holds copies of the files that go into the package and links to the sources the production build reads.
 */
export async function packageVsix(repoRoot: string, outDir: string): Promise<Vsix> {
  const started = Date.now();
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
  const stage = join(outDir, 'stage');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const name of readdirSync(repoRoot)) {
    if (SKIPPED.has(name) || name.endsWith('.vsix')) continue;
    const from = join(repoRoot, name);
    // Files are copied, esbuild.mjs too: it builds into dist/ next to itself.
    if (statSync(from).isDirectory() && !COPIED.has(name)) symlinkSync(from, join(stage, name));
    else cpSync(from, join(stage, name), { recursive: true });
  }
  const file = join(outDir, `${manifest.name}-${manifest.version}.vsix`);
  rmSync(file, { force: true });
  await run(process.execPath, [vsceCli(repoRoot), ...packageArgs(manifest), '--out', file], stage, 'vsce package');
  return {
    file,
    bytes: statSync(file).size,
    entries: zipEntries(readFileSync(file)).map(({ name, size }) => ({ name, size })),
    ms: Date.now() - started,
  };
}

/** Packages a small extension folder of the bench's or a test's own (no build, no licence, no repository). */
export async function packageFolder(repoRoot: string, folder: string, file: string): Promise<void> {
  await run(
    process.execPath,
    [vsceCli(repoRoot), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', file],
    folder,
    `vsce package in ${folder}`,
  );
}

/** Installs each VSIX into `extensionsDir` with code-server's `--install-extension`, as a user would. */
export async function installVsix(
  toolchain: Toolchain,
  options: { vsix: string | readonly string[]; extensionsDir: string; dataDir: string },
): Promise<void> {
  const packages = typeof options.vsix === 'string' ? [options.vsix] : options.vsix;
  const userDataDir = join(options.dataDir, 'user-data');
  for (const dir of [userDataDir, options.extensionsDir, join(options.dataDir, 'xdg-config'), join(options.dataDir, 'xdg-data')])
    mkdirSync(dir, { recursive: true });
  await run(
    toolchain.node,
    [
      toolchain.codeServer,
      '--config',
      '/dev/null',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      options.extensionsDir,
      ...packages.flatMap((p) => ['--install-extension', p]),
    ],
    options.dataDir,
    `code-server --install-extension ${packages.join(' ')}`,
    { XDG_CONFIG_HOME: join(options.dataDir, 'xdg-config'), XDG_DATA_HOME: join(options.dataDir, 'xdg-data') },
  );
}

interface ZipEntry extends VsixEntry {
  readonly method: number;
  readonly compressedSize: number;
  readonly headerOffset: number;
}

/** The entries listed in a zip's central directory (a VSIX is a zip; no ZIP64, which a VSIX this small never needs). */
function zipEntries(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`broken zip central directory at byte ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      headerOffset: zip.readUInt32LE(at + 42),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** One file's content from the VSIX. */
export function readVsixFile(vsix: string, name: string): Buffer {
  const zip = readFileSync(vsix);
  const entry = zipEntries(zip).find((e) => e.name === name);
  if (!entry) throw new Error(`${name} is not in ${vsix}`);
  const at = entry.headerOffset;
  const data = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const raw = zip.subarray(data, data + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(raw);
  if (entry.method === 8) return inflateRawSync(raw);
  throw new Error(`${name} uses zip method ${entry.method}, which this reader does not know`);
}
