// Archive writers for tests. Hand-written on purpose: the tests need hostile archives (members named "../x" or
// "/etc/x", links pointing out, sizes that lie) that real archive libraries refuse to write. The product reads them
// with real libraries (node-tar, yauzl); test/unit/lib/archives.test.ts checks these writers against those readers.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { crc32, gzipSync } from 'node:zlib';

export interface Member {
  /** Written verbatim: may be '../x', '/etc/x', 'C:\\x'. */
  readonly name: string;
  readonly type?: 'file' | 'dir' | 'symlink' | 'hardlink';
  readonly content?: string | Buffer;
  readonly mode?: number;
  /** A link's target, verbatim. */
  readonly target?: string;
  /** tar only: the size the header claims, whatever the content (a bomb's header). */
  readonly claimSize?: number;
}

/** The repository root: the nearest folder above with package.json (tests are bundled, each into its own folder of out/). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** A .tar.bz2 of `launcher()`: Node cannot write bzip2, so it is committed (see test/fixtures/registry/README.md). */
export function launcherTarBz2(): string {
  return join(findRoot(resolve(__dirname)), 'test', 'fixtures', 'registry', 'fixture-agent.tar.bz2');
}

/**
 * The fixture agent as a registry download: `fixture-agent/bin/fixture-agent`, a launcher that runs the compiled
 * fixture agent with the Node the registry entry's `env` names (as plain Node under Electron: a registry's env may not
 * set ELECTRON_RUN_AS_NODE, a loader variable).
 */
export function launcher(): Member[] {
  return [
    { name: 'fixture-agent/', type: 'dir' },
    { name: 'fixture-agent/bin/', type: 'dir' },
    {
      name: 'fixture-agent/bin/fixture-agent',
      mode: 0o755,
      content: '#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec "$ACP_FIXTURE_NODE" "$ACP_FIXTURE_AGENT_JS" "$@"\n',
    },
    { name: 'fixture-agent/README', content: 'The ACP test fixture agent, packaged the way registry agents are.\n' },
  ];
}

function bytes(content: string | Buffer | undefined): Buffer {
  return typeof content === 'string' ? Buffer.from(content) : (content ?? Buffer.alloc(0));
}

// ---- tar (POSIX ustar) ----

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function tarHeader(member: Member, size: number): Buffer {
  const header = Buffer.alloc(512);
  const type = member.type ?? 'file';
  let name = member.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 154);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  header.write(name, 0, 100, 'utf8');
  header.write(octal(member.mode ?? (type === 'dir' ? 0o755 : 0o644), 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii');
  header.write(octal(0, 8), 116, 8, 'ascii');
  header.write(octal(size, 12), 124, 12, 'ascii');
  header.write(octal(Math.floor(Date.UTC(2026, 0, 1) / 1000), 12), 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii');
  header.write(type === 'dir' ? '5' : type === 'symlink' ? '2' : type === 'hardlink' ? '1' : '0', 156, 1, 'ascii');
  if (member.target !== undefined) header.write(member.target, 157, 100, 'utf8');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return header;
}

export function tarArchive(members: readonly Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const member of members) {
    const data = member.type === 'file' || member.type === undefined ? bytes(member.content) : Buffer.alloc(0);
    parts.push(tarHeader(member, member.claimSize ?? data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function tgz(members: readonly Member[]): Buffer {
  return gzipSync(tarArchive(members));
}

// ---- zip (stored, made by Unix so modes and symlinks travel in the external attributes) ----

export function zipArchive(members: readonly Member[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const type = member.type ?? 'file';
    if (type === 'hardlink') throw new Error('zip has no hard links');
    const data = type === 'symlink' ? Buffer.from(member.target ?? '') : type === 'dir' ? Buffer.alloc(0) : bytes(member.content);
    const name = Buffer.from(member.name);
    const kind = type === 'symlink' ? 0o120000 : type === 'dir' ? 0o040000 : 0o100000;
    const mode = kind | (member.mode ?? (type === 'symlink' ? 0o777 : type === 'dir' ? 0o755 : 0o644));
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(10, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
