// `npm run registry:snapshot`: refreshes media/registry-snapshot.json, the list of the ACP Registry shipped in the
// VSIX for when the registry cannot be reached and nothing was fetched before.
//
//   node scripts/registry-snapshot.mjs                 fetch https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json
//   node scripts/registry-snapshot.mjs --from <dir>    build it from a checkout of github.com/agentclientprotocol/registry,
//                                                      the way its build does (one <id>/agent.json per agent)
//
// The file says where the list came from and the date of its data: the day it was fetched, or the checkout's last
// commit. Only the fields the registry's format defines are kept.
/* global fetch, AbortSignal */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const URL_ = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';
const BASE = 'https://cdn.agentclientprotocol.com/registry/v1/latest';
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'media', 'registry-snapshot.json');

function fail(message) {
  console.error(`registry-snapshot: ${message}`);
  process.exit(1);
}

function option(name) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

function checked(registry) {
  if (!registry || typeof registry !== 'object' || !Array.isArray(registry.agents)) fail('the registry has no "agents" list');
  if (typeof registry.version !== 'string') fail('the registry has no "version"');
  return { version: registry.version, agents: registry.agents, extensions: Array.isArray(registry.extensions) ? registry.extensions : [] };
}

function git(dir, ...args) {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** Every top-level folder (not starting with "." or "_") that holds the kind's JSON file, sorted by id. */
function collect(dir, file) {
  const entries = [];
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    if (!name.isDirectory() || name.name.startsWith('.') || name.name.startsWith('_')) continue;
    const json = join(dir, name.name, file);
    if (!existsSync(json)) continue;
    const entry = JSON.parse(readFileSync(json, 'utf8'));
    if (existsSync(join(dir, name.name, 'icon.svg'))) entry.icon = `${BASE}/${entry.id}.svg`;
    entries.push(entry);
  }
  return entries.sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

let snapshot;
const from = option('--from');
if (from) {
  if (!existsSync(from)) fail(`${from} does not exist`);
  const commit = option('--commit') ?? git(from, 'rev-parse', 'HEAD');
  const date = option('--date') ?? git(from, 'log', '-1', '--format=%cI');
  if (!date) fail('the data has no date: pass --date <ISO date> (and --commit <sha>) for a folder that is not a git work tree');
  const agents = collect(from, 'agent.json');
  const extensions = existsSync(join(from, 'extensions')) ? collect(join(from, 'extensions'), 'extension.json') : [];
  snapshot = {
    date: new Date(date).toISOString(),
    source: `github.com/agentclientprotocol/registry${commit ? `@${commit}` : ''}`,
    registry: checked({ version: '1.0.0', agents, extensions }),
  };
} else {
  const response = await fetch(URL_, { signal: AbortSignal.timeout(30_000) }).catch((error) =>
    fail(`${URL_} could not be fetched: ${error.message}`),
  );
  if (!response.ok) fail(`${URL_} answered ${response.status}`);
  snapshot = { date: new Date().toISOString(), source: URL_, registry: checked(await response.json()) };
}
writeFileSync(target, `${JSON.stringify(snapshot, null, 2)}\n`);
console.log(`registry-snapshot: ${snapshot.registry.agents.length} agents from ${snapshot.source} (${snapshot.date}) → media/registry-snapshot.json`);
