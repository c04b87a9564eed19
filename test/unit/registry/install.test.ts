// The registry's downloads, archives and installs in plain Node, against a real loopback HTTP server and real temp
// folders: every archive type, every hostile member, the size bounds, the timeouts, cancellation, and the cache.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/acp/log';
import { archiveKind, extract, unsafeLinkTarget, unsafeMemberName } from '../../../src/registry/archive';
import { parseRegistry, type HowToRun, type RegistryAgent } from '../../../src/registry/format';
import { InstalledAgents } from '../../../src/registry/installed';
import { Installer, type InstallBounds } from '../../../src/registry/installer';
import { download, getBuffer, refusedUrl } from '../../../src/registry/net';
import { RegistrySource } from '../../../src/registry/source';
import { launcher, launcherTarBz2, tarArchive, tgz, zipArchive, type Member } from '../../lib/archives';
import { RegistryServer } from '../../lib/registryServer';

const BOUNDS: InstallBounds = {
  download: { maxBytes: 1024 * 1024, idleTimeoutMs: 500, totalTimeoutMs: 5000 },
  extract: { maxBytes: 1024 * 1024, maxMembers: 100 },
};

function agentWith(archive: string, cmd = './fixture-agent/bin/fixture-agent', version = '1.0.0'): { agent: RegistryAgent; how: HowToRun } {
  const { registry } = parseRegistry({
    version: '1.0.0',
    agents: [{ id: 'fixture', name: 'Fixture', version, description: 'd', distribution: { binary: { 'linux-x86_64': { archive, cmd } } } }],
  });
  const agent = registry.agents[0]!;
  return { agent, how: { kind: 'binary', target: agent.distribution.binary!['linux-x86_64']!, platform: 'linux-x86_64' } };
}

describe('registry URLs', () => {
  it('fetches https and loopback http only, and says why anything else is refused', () => {
    assert.equal(refusedUrl('https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json'), undefined);
    assert.equal(refusedUrl('http://127.0.0.1:8080/r.json'), undefined);
    assert.equal(refusedUrl('http://localhost/r.json'), undefined);
    assert.equal(refusedUrl('http://[::1]:3000/r.json'), undefined);
    assert.match(refusedUrl('http://example.com/r.json') ?? '', /plain http, which is only fetched from this machine/);
    assert.match(refusedUrl('http://127.0.0.1.evil.com/r.json') ?? '', /plain http/);
    assert.match(refusedUrl('file:///etc/passwd') ?? '', /not an https URL/);
    assert.match(refusedUrl('ftp://example.com/x') ?? '', /not an https URL/);
    assert.match(refusedUrl('https://user:pw@example.com/x') ?? '', /user name or password/);
    assert.match(refusedUrl('not a url') ?? '', /is not a URL/);
  });
});

describe('archive member checks', () => {
  it('refuses names that leave the folder on any OS', () => {
    for (const name of ['../x', 'a/../../x', '..\\x', 'a\\..\\..\\x', '/etc/passwd', '\\\\server\\share', 'C:\\x', 'c:x', 'a\0b', '']) {
      assert.ok(unsafeMemberName(name), `${JSON.stringify(name)} is refused`);
    }
    for (const name of ['a', 'a/b/c', './a', 'a/./b', 'a..b', '..a']) assert.equal(unsafeMemberName(name), undefined, name);
  });

  it('refuses links that point outside, relative to the link (symlinks) or to the root (hard links)', () => {
    assert.equal(unsafeLinkTarget('a/b/link', '../c', 'member'), undefined);
    assert.ok(unsafeLinkTarget('a/link', '../../c', 'member'));
    assert.ok(unsafeLinkTarget('link', '/etc', 'member'));
    assert.ok(unsafeLinkTarget('link', 'C:\\Windows', 'member'));
    assert.equal(unsafeLinkTarget('a/b/link', 'a/c', 'root'), undefined);
    assert.ok(unsafeLinkTarget('a/b/link', '../c', 'root'));
  });

  it('knows the archive kinds by their names', () => {
    assert.equal(archiveKind('https://x/a.tar.gz'), 'tar.gz');
    assert.equal(archiveKind('https://x/a.TGZ'), 'tar.gz');
    assert.equal(archiveKind('https://x/a.zip?download=1'), 'zip');
    assert.equal(archiveKind('https://x/a.tar.bz2'), 'tar.bz2');
    assert.equal(archiveKind('https://x/a.tbz2'), 'tar.bz2');
    assert.equal(archiveKind('https://x/a.tar'), 'tar');
    assert.equal(archiveKind('https://x/agent'), 'raw');
    assert.deepEqual(archiveKind('https://x/a.tar.xz'), { unsupported: '.tar.xz' });
  });
});

describe('extract', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'acp-extract-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  async function run(kind: Parameters<typeof extract>[1], body: Buffer, bounds = BOUNDS.extract): Promise<string> {
    const file = join(work, `download-${randomUUID()}`);
    writeFileSync(file, body);
    const folder = join(work, 'out', randomUUID());
    mkdirSync(folder, { recursive: true });
    await extract(file, kind, folder, bounds, 'fixture-agent');
    return folder;
  }

  it('unpacks every archive type with modes and links kept', async () => {
    const members: Member[] = [...launcher(), { name: 'fixture-agent/bin/run', type: 'symlink', target: 'fixture-agent' }];
    for (const [kind, body] of [
      ['tar.gz', tgz(members)],
      ['tar', tarArchive(members)],
      ['zip', zipArchive(members)],
    ] as const) {
      const folder = await run(kind, body);
      const script = join(folder, 'fixture-agent', 'bin', 'fixture-agent');
      assert.match(readFileSync(script, 'utf8'), /ACP_FIXTURE_AGENT_JS/, kind);
      assert.equal(statSync(script).mode & 0o111, 0o111, `${kind} keeps the executable bits`);
      assert.match(readFileSync(join(folder, 'fixture-agent', 'bin', 'run'), 'utf8'), /ACP_FIXTURE_AGENT_JS/, `${kind} keeps the link`);
    }
    const bz = await run('tar.bz2', readFileSync(launcherTarBz2()));
    assert.ok(existsSync(join(bz, 'fixture-agent', 'bin', 'fixture-agent')));
  });

  const hostile: [string, Member[], RegExp][] = [
    ['a "../" member', [{ name: '../escaped.txt', content: 'x' }], /climbs out/],
    ['an absolute member', [{ name: '/tmp/escaped.txt', content: 'x' }], /absolute/],
    ['a drive letter', [{ name: 'C:\\escaped.txt', content: 'x' }], /drive|refused/],
    ['a symlink out', [{ name: 'link', type: 'symlink', target: '../../..' }], /links outside/],
    ['an absolute symlink', [{ name: 'link', type: 'symlink', target: '/etc' }], /absolute path/],
  ];
  for (const [what, extra, expected] of hostile) {
    it(`refuses ${what} in tar and zip, and writes nothing at all`, async () => {
      for (const [kind, body] of [
        ['tar.gz', tgz([...launcher(), ...extra])],
        ['zip', zipArchive([...launcher(), ...extra])],
      ] as const) {
        const file = join(work, 'download');
        writeFileSync(file, body);
        const folder = join(work, 'out');
        mkdirSync(folder, { recursive: true });
        await assert.rejects(extract(file, kind, folder, BOUNDS.extract, 'x'), expected, kind);
        assert.deepEqual(readdirSync(folder), [], `${kind}: not even the good members were written`);
        assert.ok(!existsSync(join(work, 'escaped.txt')));
        rmSync(folder, { recursive: true });
      }
    });
  }

  // Chains of links that each look inside when read alone: `d/l1` is the folder itself, `d/lk` is `d/l(k-1)` again,
  // and `esc` is `d/ln/..`, which reads as `d` but on disk is the folder's parent.
  const chain = (depth: number): Member[] => [
    { name: 'd/', type: 'dir' },
    { name: 'd/l1', type: 'symlink', target: '..' },
    ...Array.from({ length: depth - 1 }, (_, i): Member => ({ name: `d/l${i + 2}`, type: 'symlink', target: `l${i + 1}/d/l${i + 1}` })),
    { name: 'esc', type: 'symlink', target: `d/l${depth}/..` },
  ];
  const through: [string, (depth: number) => Member[]][] = [
    ['a directory member under the chain', (n) => [...chain(n), { name: 'esc/pwned/', type: 'dir' }]],
    ['a file member under the chain', (n) => [...chain(n), { name: 'esc/pwned/file', content: 'x' }]],
    ['a link inside a linked folder', (n) => [...chain(n), { name: `d/l${n}/d/pwned`, type: 'symlink', target: '.' }]],
    ['the chain alone', (n) => chain(n)],
  ];
  for (let depth = 1; depth <= 5; depth++) {
    for (const [what, members] of through) {
      it(`refuses a chain of ${depth} link${depth > 1 ? 's' : ''} out with ${what}, in tar and zip, creating nothing outside`, async () => {
        for (const [kind, body] of [
          ['tar', tarArchive([...launcher(), ...members(depth)])],
          ['zip', zipArchive([...launcher(), ...members(depth)])],
        ] as const) {
          const parent = join(work, kind);
          mkdirSync(join(parent, 'folder'), { recursive: true });
          const file = join(work, `download.${kind}`);
          writeFileSync(file, body);
          await assert.rejects(extract(file, kind, join(parent, 'folder'), BOUNDS.extract, 'x'), /refused/, kind);
          assert.deepEqual(readdirSync(parent), ['folder'], `${kind}: nothing was made beside the folder`);
        }
      });
    }
  }

  it('refuses a link to a parent folder, a missing target, a loop, and a hard link to anything but a file it wrote', async () => {
    const refusedWith = async (extra: Member[], expected: RegExp) => {
      const parent = join(work, randomUUID());
      mkdirSync(join(parent, 'folder'), { recursive: true });
      writeFileSync(join(parent, 'secret'), 'the user\u2019s file');
      const file = join(work, 'download.tar');
      writeFileSync(file, tarArchive([...launcher(), ...extra]));
      await assert.rejects(extract(file, 'tar', join(parent, 'folder'), BOUNDS.extract, 'x'), expected);
      assert.deepEqual(readdirSync(parent).sort(), ['folder', 'secret']);
      assert.equal(statSync(join(parent, 'secret')).nlink, 1, 'the outside file got no new link');
    };
    await refusedWith([{ name: 'up', type: 'symlink', target: '..' }], /links outside/);
    await refusedWith(
      [
        { name: 'a/', type: 'dir' },
        { name: 'a/up', type: 'symlink', target: '../..' },
      ],
      /links outside/,
    );
    await refusedWith([{ name: 'gone', type: 'symlink', target: 'nowhere' }], /not in the archive/);
    await refusedWith(
      [
        { name: 'x', type: 'symlink', target: 'y' },
        { name: 'y', type: 'symlink', target: 'x' },
      ],
      /not in the archive/,
    );
    // A hard link through a chain to the user's file, to a link, to a folder, and to a file it has not written yet.
    await refusedWith([...chain(2), { name: 'h', type: 'hardlink', target: 'esc/secret' }], /not a file of this archive/);
    await refusedWith(
      [
        { name: 's', type: 'symlink', target: 'fixture-agent/README' },
        { name: 'h', type: 'hardlink', target: 's' },
      ],
      /not a file of this archive/,
    );
    await refusedWith([{ name: 'h', type: 'hardlink', target: 'fixture-agent/bin' }], /not a file of this archive/);
    await refusedWith(
      [
        { name: 'h', type: 'hardlink', target: 'later' },
        { name: 'later', content: 'x' },
      ],
      /not a file of this archive/,
    );
  });

  it('keeps links that stay inside, however they are chained, and hard links to its own files', async () => {
    const folder = await run(
      'tar',
      tarArchive([
        ...launcher(),
        { name: 'lib/', type: 'dir' },
        { name: 'lib/self', type: 'symlink', target: '.' },
        { name: 'alias', type: 'symlink', target: 'lib/self/self/../README' },
        { name: 'README', content: 'inside' },
        { name: 'again', type: 'hardlink', target: 'README' },
      ]),
    );
    assert.equal(readFileSync(join(folder, 'alias'), 'utf8'), 'inside');
    assert.equal(readFileSync(join(folder, 'again'), 'utf8'), 'inside');
  });

  it('refuses a hard link out of the folder, and a device', async () => {
    await assert.rejects(run('tar.gz', tgz([...launcher(), { name: 'h', type: 'hardlink', target: '../../etc/passwd' }])), /links outside/);
  });

  it('refuses an archive over the extracted bound or member count, however small the download', async () => {
    await assert.rejects(run('tar.gz', tgz([{ name: 'big', content: Buffer.alloc(2 * 1024 * 1024) }])), /unpacks to more than 1 MB/);
    await assert.rejects(run('zip', zipArchive([{ name: 'big', content: Buffer.alloc(2 * 1024 * 1024) }])), /unpacks to more than 1 MB/);
    const many = Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
    await assert.rejects(run('tar.gz', tgz(many)), /more than 100 members/);
    await assert.rejects(run('zip', zipArchive(many)), /more than 100 members/);
  });

  it('fails cleanly on a truncated or corrupt archive', async () => {
    const whole = tgz(launcher());
    await assert.rejects(run('tar.gz', whole.subarray(0, whole.length - 30)), /damaged/);
    const zip = zipArchive(launcher());
    await assert.rejects(run('zip', zip.subarray(0, zip.length - 10)), /damaged/);
    await assert.rejects(run('zip', Buffer.from('PK but not really a zip')), /damaged/);
    await assert.rejects(run('tar.gz', Buffer.from('not gzip at all')), /not a tar\.gz archive/);
    await assert.rejects(run('tar.bz2', Buffer.from('BZh9 and then garbage')), /damaged/);
  });
});

describe('downloads and installs against a loopback server', () => {
  let server: RegistryServer;
  let root: string;
  before(async () => {
    server = await RegistryServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'acp-agents-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const installer = () => new Installer(root, silentLogger, BOUNDS);
  /** The registry these agents were listed in: on this machine, so its downloads may be plain http here. */
  const local = () => ({ registry: server.url('/registry.json') });

  it('fetches a download over plain http to this machine only for a registry on this machine', async () => {
    server.route('/local.tar.gz', { body: tgz(launcher()) });
    const { agent, how } = agentWith(server.url('/local.tar.gz'));
    for (const registry of [undefined, 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json']) {
      await assert.rejects(installer().install(agent, how, registry ? { registry } : {}), /plain http on this machine/);
    }
    assert.deepEqual(readdirSync(root), []);
    assert.ok((await installer().install(agent, how, local())).dir);
  });

  it('installs into <root>/<id>/<version>, the command executable and inside', async () => {
    server.route('/a-1.0.0.tar.gz', { body: tgz(launcher()) });
    const { agent, how } = agentWith(server.url('/a-1.0.0.tar.gz'));
    const record = await installer().install(agent, how, local());
    assert.equal(record.dir, join(root, 'fixture', '1.0.0'));
    assert.equal(record.command, join(root, 'fixture', '1.0.0', 'fixture-agent', 'bin', 'fixture-agent'));
    assert.equal(statSync(record.command).mode & 0o100, 0o100);
    assert.deepEqual(readdirSync(root), ['fixture'], 'nothing else is left in the root');
  });

  it('refuses a command outside the folder, or missing, and leaves nothing', async () => {
    server.route('/b.tar.gz', { body: tgz([...launcher(), { name: 'fixture-agent/out', type: 'symlink', target: '../fixture-agent' }]) });
    for (const [cmd, expected] of [
      ['../../bin/sh', /not inside the install folder/],
      ['./missing', /has no "\.\/missing"/],
      ['./fixture-agent/bin', /not a file/],
    ] as const) {
      const { agent, how } = agentWith(server.url('/b.tar.gz'), cmd);
      await assert.rejects(installer().install(agent, how, local()), expected);
      assert.deepEqual(readdirSync(root), [], `${cmd}: nothing is left`);
    }
  });

  it('refuses an oversized download by its Content-Length and by what arrives', async () => {
    server.route('/claimed.tar.gz', { truncate: Buffer.alloc(8), claim: 10 * 1024 * 1024 });
    server.route('/streamed.tar.gz', { stream: 3 * 1024 * 1024 });
    for (const path of ['/claimed.tar.gz', '/streamed.tar.gz']) {
      const { agent, how } = agentWith(server.url(path));
      await assert.rejects(installer().install(agent, how, local()), /over the limit of 1\.0 MB/);
      assert.deepEqual(readdirSync(root), []);
    }
  });

  it('stops a download that goes quiet, one the server cuts short, and one the user cancels', async () => {
    server.route('/hang.tar.gz', { hang: true });
    const quiet = agentWith(server.url('/hang.tar.gz'));
    await assert.rejects(installer().install(quiet.agent, quiet.how, local()), /nothing arrived for/);
    server.route('/short.tar.gz', { truncate: Buffer.alloc(100), claim: 5000 });
    const short = agentWith(server.url('/short.tar.gz'));
    await assert.rejects(installer().install(short.agent, short.how, local()), /connection closed after/);
    const controller = new AbortController();
    const pending = installer().install(quiet.agent, quiet.how, { ...local(), signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, /cancelled/);
    assert.deepEqual(readdirSync(root), []);
  });

  it('follows https-or-loopback redirects only', async () => {
    server.route('/moved.tar.gz', { status: 302, location: '/a.tar.gz' });
    server.route('/a.tar.gz', { body: tgz(launcher()) });
    const { agent, how } = agentWith(server.url('/moved.tar.gz'));
    assert.ok((await installer().install(agent, how, local())).dir);
    server.route('/away.tar.gz', { status: 302, location: 'http://example.com/a.tar.gz' });
    const away = agentWith(server.url('/away.tar.gz'), undefined, '2.0.0');
    await assert.rejects(installer().install(away.agent, away.how, local()), /a redirect was refused/);
  });

  it('pins package agents, and names the missing tool', async () => {
    const { registry } = parseRegistry({
      version: '1.0.0',
      agents: [
        { id: 'p', name: 'P', version: '1.2.3', description: 'd', distribution: { npx: { package: '@p/agent', args: ['--acp'], env: { A: 'b' } } } },
      ],
    });
    const agent = registry.agents[0]!;
    const how: HowToRun = { kind: 'npx', target: agent.distribution.npx! };
    const withTool = new Installer(root, silentLogger, BOUNDS, () => '/usr/bin/npx');
    const record = await withTool.install(agent, how, local());
    assert.deepEqual([record.command, ...record.args], ['npx', '-y', '@p/agent@1.2.3', '--acp']);
    assert.deepEqual(record.env, { A: 'b' });
    const without = new Installer(root, silentLogger, BOUNDS, () => undefined);
    await assert.rejects(without.install(agent, how, local()), /P runs with npx, which is not on PATH\. npx comes with Node\.js/);
  });

  it('getBuffer and download report what the server said', async () => {
    server.route('/text', { body: 'hello' });
    assert.equal((await getBuffer(server.url('/text'), BOUNDS.download)).body.toString(), 'hello');
    assert.equal((await getBuffer(server.url('/nothing-here'), BOUNDS.download)).status, 404);
    await assert.rejects(download(server.url('/nothing-here'), join(root, 'x'), BOUNDS.download, { loopbackHttp: true }), /answered 404/);
  });

  it('reads the registry with ETags, then from the cache, then from the snapshot', async () => {
    const snapshot = join(root, 'snapshot.json');
    writeFileSync(
      snapshot,
      JSON.stringify({
        date: '2026-02-07T18:22:39Z',
        registry: { version: '1.0.0', agents: [{ id: 's', name: 'S', version: '1.0.0', description: 'd', distribution: { npx: { package: 's' } } }] },
      }),
    );
    const source = new RegistrySource(join(root, 'cache'), snapshot, silentLogger, BOUNDS.download);
    const doc = { version: '1.0.0', agents: [{ id: 'n', name: 'N', version: '1.0.0', description: 'd', distribution: { npx: { package: 'n' } } }] };
    server.route('/registry.json', { body: JSON.stringify(doc), etag: true });
    const url = server.url('/registry.json');
    const first = await source.load(url);
    assert.equal(first.origin, 'network');
    const second = await source.load(url);
    assert.equal(second.origin, 'network');
    assert.deepEqual(
      second.registry.agents.map((a) => a.id),
      ['n'],
    );
    const last = server.requests.filter((r) => r.path === '/registry.json').at(-1);
    assert.ok(last?.headers['if-none-match'], 'asked with the ETag');

    server.route('/registry.json', { status: 500 });
    const cached = await source.load(url);
    assert.equal(cached.origin, 'cache');
    assert.match(cached.offline ?? '', /500/);

    server.route('/broken.json', { body: '{"version": "1.0.0", "agents": "no"' });
    const fromSnapshot = await source.load(server.url('/broken.json'));
    assert.equal(fromSnapshot.origin, 'snapshot');
    assert.equal(fromSnapshot.date, '2026-02-07T18:22:39Z');
    assert.deepEqual(
      fromSnapshot.registry.agents.map((a) => a.id),
      ['s'],
    );
    await assert.rejects(source.load('http://example.com/registry.json'), /refused/);
  });

  it('keeps the record of installs in order, and reads one another window wrote', async () => {
    const store = new InstalledAgents(root, silentLogger);
    const base = { name: 'A', version: '1.0.0', kind: 'npx' as const, command: 'npx', args: [], env: {}, installedAt: '' };
    await Promise.all([store.put({ ...base, id: 'b' }), store.put({ ...base, id: 'a' }), store.put({ ...base, id: 'c' })]);
    await store.remove('c');
    assert.deepEqual(
      store.list().map((a) => a.id),
      ['a', 'b'],
    );
    const other = new InstalledAgents(root, silentLogger);
    await other.put({ ...base, id: 'a', version: '2.0.0' });
    assert.equal(store.get('a')?.version, '2.0.0');
    writeFileSync(join(root, 'installed.json'), '{ not json');
    assert.deepEqual(new InstalledAgents(root, silentLogger).list(), []);
    assert.equal(readFileSync(join(root, 'installed.json.damaged'), 'utf8'), '{ not json', 'the damaged record is kept aside');
  });
});
