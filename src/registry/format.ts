// The ACP Registry's format (github.com/agentclientprotocol/registry, FORMAT.md): parsed leniently, one agent at a
// time, so a bad entry is skipped with a sentence and never hides the others. Also what an entry means here: how it
// would run on this platform, and its pinned command line. Plain Node: unit-tested without VS Code.
import { z } from 'zod';

/** Registry targets for binaries: `<os>-<arch>`. */
const PLATFORM_KEYS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;
export type PlatformKey = (typeof PLATFORM_KEYS)[number];

/** Bounds on what a registry may hold, so a hostile one cannot make us keep or show megabytes. */
const MAX_AGENTS = 500;
const MAX_TEXT = 1000;
const MAX_ARGS = 64;
const MAX_ENV = 64;

const text = (max = MAX_TEXT) => z.string().max(max);
const args = z.array(text()).max(MAX_ARGS);
const env = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an env name is not a variable name')
      .max(200),
    text(),
  )
  .refine((value) => Object.keys(value).length <= MAX_ENV, 'too many env values')
  .superRefine((value, context) => {
    const loader = Object.keys(value).find(isLoaderVariable);
    if (loader) context.addIssue({ code: 'custom', message: `it sets ${loader}, which changes what runs or where code is loaded from` });
  });

/**
 * Variables that change which program runs, what it loads or where a package manager fetches from: a registry entry
 * may not set them, since the user reads "npx @vendor/agent" and would run something else. Compared without case,
 * as Windows does.
 */
const LOADER_VARIABLES = new Set([
  'PATH',
  'PATHEXT',
  'COMSPEC',
  'SYSTEMROOT',
  'HOME',
  'USERPROFILE',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'ELECTRON_RUN_AS_NODE',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PYTHONUSERBASE',
  'PYTHONEXECUTABLE',
  'PYTHONINSPECT',
  'PYTHONWARNINGS',
  'PYTHONBREAKPOINT',
  'PYTHONPLATLIBDIR',
  'BASH_ENV',
  'ENV',
  'ZDOTDIR',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'GEM_PATH',
  'GEM_HOME',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'CLASSPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
]);
const LOADER_PREFIXES = ['LD_', 'DYLD_', 'NPM_CONFIG_', 'YARN_', 'PNPM_', 'COREPACK_', 'UV_', 'PIP_', 'GIT_', 'BASH_FUNC_'];

/** True for a variable a registry entry may not set (see LOADER_VARIABLES). */
function isLoaderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LOADER_VARIABLES.has(upper) || LOADER_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** An npm package spec: `name` or `@scope/name`, with an optional `@version`; never an option (`-…`). */
const NPM_SPEC = /^(?:@[a-z0-9][a-z0-9._~-]{0,213}\/)?[a-z0-9][a-z0-9._~-]{0,213}(?:@[A-Za-z0-9._+~^<>=|-]{1,100})?$/i;
/** A PyPI requirement as uvx takes it: a name, optional extras, an optional version specifier or `@version`. */
const PYPI_SPEC =
  /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,200}[A-Za-z0-9])?(?:\[[A-Za-z0-9._-]{1,100}(?:,[A-Za-z0-9._-]{1,100}){0,20}\])?(?:(?:===?|[<>!~]=|[<>@])[A-Za-z0-9.*+!_-]{1,100})?$/;

const BinaryTarget = z.object({
  archive: text(2000).url(),
  cmd: text(500).min(1),
  args: args.optional(),
  env: env.optional(),
});
/** A program a package provides (its `bin`, or its script): a name, never a path or an option. */
const PACKAGE_CMD = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;
const packageCmd = text(101).regex(PACKAGE_CMD, 'its cmd is not the name of a program of the package');
const NpxTarget = z.object({
  package: text(300).regex(NPM_SPEC, 'its package is not an npm package name'),
  /** Which of the package's programs runs, when it is not the package's default one. */
  cmd: packageCmd.optional(),
  args: args.optional(),
  env: env.optional(),
});
const UvxTarget = z.object({
  package: text(300).regex(PYPI_SPEC, 'its package is not a PyPI package name'),
  cmd: packageCmd.optional(),
  args: args.optional(),
  env: env.optional(),
});

const AgentEntry = z.object({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'its id is not lowercase letters, digits and hyphens')
    .max(100),
  name: text(100).trim().min(1),
  // Semantic versions only: a version names a folder and pins a package, so it holds no separators or spaces.
  version: text(100).regex(/^[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'its version is not x.y.z'),
  description: text(),
  repository: text(2000).optional(),
  /** The agent's web page (newer registries): linked in Add Agent, over https only. */
  website: text(2000).optional(),
  authors: z.array(text(200)).max(50).optional(),
  license: text(200).optional(),
  icon: text(2000).optional(),
  distribution: z
    .object({
      binary: z.partialRecord(z.enum(PLATFORM_KEYS), BinaryTarget).optional(),
      npx: NpxTarget.optional(),
      uvx: UvxTarget.optional(),
    })
    .refine((d) => d.binary !== undefined || d.npx !== undefined || d.uvx !== undefined, 'it has no distribution'),
});

export type RegistryAgent = z.infer<typeof AgentEntry>;
type BinaryTarget = z.infer<typeof BinaryTarget>;
export type PackageTarget = z.infer<typeof NpxTarget>;

export interface Registry {
  readonly version: string;
  readonly agents: readonly RegistryAgent[];
}

export interface ParsedRegistry {
  readonly registry: Registry;
  /** One sentence per entry that was skipped. */
  readonly problems: readonly string[];
}

/** Parses a registry document. Throws a sentence when the document as a whole is not a registry. */
export function parseRegistry(json: unknown): ParsedRegistry {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('the registry is not a JSON object');
  const doc = json as Record<string, unknown>;
  if (!Array.isArray(doc['agents'])) throw new Error('the registry has no "agents" list');
  const version = typeof doc['version'] === 'string' ? doc['version'].slice(0, 100) : '';
  if (!/^[0-9]+\./.test(version)) throw new Error('the registry has no format version');
  if (!version.startsWith('1.')) throw new Error(`the registry's format ${version} is newer than this extension reads (1.x)`);
  const problems: string[] = [];
  const agents: RegistryAgent[] = [];
  const seen = new Set<string>();
  const entries = doc['agents'] as unknown[];
  if (entries.length > MAX_AGENTS) problems.push(`The registry lists ${entries.length} agents; only the first ${MAX_AGENTS} were read.`);
  entries.slice(0, MAX_AGENTS).forEach((entry, index) => {
    const parsed = AgentEntry.safeParse(entry);
    const label = labelOf(entry, index);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` (${issue.path.join('.')})` : '';
      problems.push(`The registry's agent ${label} was skipped: ${issue?.message ?? 'it is invalid'}${where}.`);
      return;
    }
    if (seen.has(parsed.data.id)) {
      problems.push(`The registry's agent ${label} was skipped: its id is listed twice.`);
      return;
    }
    seen.add(parsed.data.id);
    agents.push(parsed.data);
  });
  return { registry: { version, agents }, problems };
}

function labelOf(entry: unknown, index: number): string {
  const id = entry && typeof entry === 'object' ? (entry as Record<string, unknown>)['id'] : undefined;
  return typeof id === 'string' && id.length > 0 && id.length <= 100 ? JSON.stringify(id) : `#${index + 1}`;
}

/** This machine's registry target, or undefined on an OS or CPU the registry has no key for. */
export function platformKey(platform: NodeJS.Platform, arch: string): PlatformKey | undefined {
  const os = platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : undefined;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  return os && cpu ? `${os}-${cpu}` : undefined;
}

/** How an agent would run here: the first of binary, npx, uvx that this platform can use, or why none can. */
export type HowToRun =
  | { readonly kind: 'binary'; readonly target: BinaryTarget; readonly platform: PlatformKey }
  | { readonly kind: 'npx' | 'uvx'; readonly target: PackageTarget }
  | { readonly kind: 'unsupported'; readonly why: string };

export function howToRun(agent: RegistryAgent, platform: PlatformKey | undefined): HowToRun {
  const { binary, npx, uvx } = agent.distribution;
  const target = platform ? binary?.[platform] : undefined;
  if (target && platform) return { kind: 'binary', target, platform };
  if (npx) return { kind: 'npx', target: npx };
  if (uvx) return { kind: 'uvx', target: uvx };
  const offered = Object.keys(binary ?? {}).join(', ');
  return {
    kind: 'unsupported',
    why: platform
      ? `it has no build for ${platform} (only ${offered || 'none'})`
      : `this OS or CPU has no registry target (it has ${offered || 'none'})`,
  };
}

/** The package spec pinned to the agent's version: `pkg@version` for npx, `pkg==version` for uvx. A spec that names a version already is kept. */
export function pinnedPackage(kind: 'npx' | 'uvx', spec: string, version: string): string {
  if (kind === 'npx') {
    // `@scope/name@1.2.3` or `name@1.2.3`: a version is an `@` after the first character.
    return spec.indexOf('@', 1) > 0 ? spec : `${spec}@${version}`;
  }
  return /[=<>~!@]/.test(spec) ? spec : `${spec}==${version}`;
}

/** A package spec's name without its version (and, for PyPI, its extras), to compare two specs' packages. */
export function packageName(kind: 'npx' | 'uvx', spec: string): string {
  if (kind === 'npx') {
    const at = spec.indexOf('@', 1);
    return at > 0 ? spec.slice(0, at) : spec;
  }
  return (/^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? '').toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The command line of a package-run agent, pinned. `-y`/`--yes` keeps npx from asking on stdin, which is the
 * protocol's pipe. A `cmd` runs that program of the package (`npx --package <pkg> <cmd>`, `uvx --from <pkg> <cmd>`)
 * rather than its default one.
 */
export function packageCommand(kind: 'npx' | 'uvx', target: PackageTarget, version: string): { command: string; args: string[] } {
  const pinned = pinnedPackage(kind, target.package, version);
  const rest = target.args ?? [];
  if (kind === 'npx') return { command: 'npx', args: target.cmd ? ['-y', '--package', pinned, target.cmd, ...rest] : ['-y', pinned, ...rest] };
  return { command: 'uvx', args: target.cmd ? ['--from', pinned, target.cmd, ...rest] : [pinned, ...rest] };
}

export { compareVersions } from '../common/versions';
