// Build script for the extension host bundle, the webview bundle and the test bundles.
//
//   node esbuild.mjs                 development build (linked sourcemaps, not minified)
//   node esbuild.mjs --production    minified build, no sourcemaps
//   node esbuild.mjs --watch         development build, rebuilt on change
//   node esbuild.mjs --tests         bundle test/**/*.test.ts, test/fixtures/*.ts, test/bench/*.ts into out/

import * as esbuild from 'esbuild';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
process.chdir(root);

const args = new Set(process.argv.slice(2));
const known = new Set(['--production', '--watch', '--tests']);
for (const arg of args) {
  if (!known.has(arg)) {
    console.error(`esbuild.mjs: unknown argument ${arg} (expected ${[...known].join(', ')})`);
    process.exit(2);
  }
}
const production = args.has('--production');
const watch = args.has('--watch');
const tests = args.has('--tests');
if (production && tests) {
  console.error('esbuild.mjs: --production and --tests cannot be combined');
  process.exit(2);
}

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  logLevel: 'warning',
  minify: production,
  sourcemap: production ? false : 'linked',
  define: production ? { 'process.env.NODE_ENV': '"production"' } : {},
};

/**
 * Keeps the core out of the entry point's bundle: src/extension.ts loads dist/core.js at run time (with its code
 * cache) and may import only types from './core'. A value imported from there would bundle the whole core into the
 * entry point, so it fails the build instead.
 * @type {esbuild.Plugin}
 */
const coreApart = {
  name: 'core-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/core(\.js)?$/ }, (args) =>
      args.importer.endsWith(join('src', 'extension.ts'))
        ? {
            errors: [{ text: "src/extension.ts imports a value from './core': import only types; the core is loaded from dist/core.js at run time" }],
          }
        : undefined,
    );
  },
};

/**
 * The core is compiled with vm.Script (src/common/codeCache.ts), which has no loader for `import()`: a dynamic import
 * left in it would fail when run, so it fails the build. Within the bundle, a `require` does the same work.
 * @type {esbuild.Plugin}
 */
const noDynamicImport = {
  name: 'no-dynamic-import',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import'
        ? { errors: [{ text: `import('${args.path}') in ${args.importer}: dist/core.js is compiled without a loader for import(); use require` }] }
        : undefined,
    );
  },
};

/**
 * Leaves mcpLoader.ts' `require('./mcp')` to be loaded at run time from dist/editor-tools-mcp.js: the MCP SDKs, which
 * the core loads when the editor tools are first offered to a session rather than with itself.
 * @type {esbuild.Plugin}
 */
const mcpApart = {
  name: 'mcp-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/mcp$/ }, (args) =>
      args.importer.endsWith(join('src', 'editorTools', 'mcpLoader.ts')) ? { path: './editor-tools-mcp.js', external: true } : undefined,
    );
  },
};

/** @type {esbuild.BuildOptions[]} */
const appBuilds = [
  // The entry point and the core are two bundles: the entry point, small, loads the core on first use (see
  // src/extension.ts), so activation does not pay for the protocol core and its schemas.
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [coreApart],
  },
  {
    ...common,
    entryPoints: ['src/core.ts'],
    outfile: 'dist/core.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [mcpApart, noDynamicImport],
  },
  {
    ...common,
    // The MCP SDKs of the editor tools (src/editorTools/mcp.ts), loaded by the core on first use.
    entryPoints: ['src/editorTools/mcp.ts'],
    outfile: 'dist/editor-tools-mcp.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    // The editor tools' stdio bridge, run by agents that take MCP servers over stdio only (src/editorTools/pipe.ts).
    entryPoints: ['src/editorTools/bridge.ts'],
    outfile: 'dist/mcp-stdio.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    // `@url`'s HTML to Markdown, in a worker thread of the extension host (src/chat/pageText.ts).
    entryPoints: ['src/composer/pageWorker.ts'],
    outfile: 'dist/page-text.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    // dist/webview.js and (when the stylesheet exists) dist/webview.css
    entryPoints: [
      { in: 'webview/main.tsx', out: 'webview' },
      ...(existsSync('webview/main.css') ? [{ in: 'webview/main.css', out: 'webview' }] : []),
    ],
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The codicon font, imported by the stylesheet, goes next to it.
    loader: { '.ttf': 'file' },
    assetNames: '[name]',
  },
];

/**
 * Lists files under `dir` (relative to the repository root, with forward slashes) whose name
 * satisfies `accept`, descending into subdirectories when `recursive`. A missing directory yields no files.
 * @param {string} dir
 * @param {boolean} recursive
 * @param {(name: string) => boolean} accept
 * @returns {string[]}
 */
function listFiles(dir, recursive, accept) {
  if (!existsSync(dir)) return [];
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive && entry.name !== 'node_modules') found.push(...listFiles(path, true, accept));
    } else if (entry.isFile() && accept(entry.name)) {
      found.push(path.split(sep).join('/'));
    }
  }
  return found;
}

function testEntryPoints() {
  const isTs = (/** @type {string} */ name) => name.endsWith('.ts') && !name.endsWith('.d.ts');
  const entries = new Set([
    ...listFiles('test', true, (name) => name.endsWith('.test.ts')),
    ...listFiles('test/fixtures', false, isTs),
    ...listFiles('test/bench', false, isTs),
    ...listFiles('test/harness', false, isTs),
    'test/integration/index.ts',
    'test/agents/index.ts',
    // The page worker, as unit tests run it (out/src/composer/pageWorker.js).
    'src/composer/pageWorker.ts',
  ]);
  return [...entries].sort();
}

/** @returns {esbuild.BuildOptions[]} */
function testBuilds() {
  const entryPoints = testEntryPoints();
  if (entryPoints.length === 0) {
    console.log('esbuild.mjs: no test entry points found');
    return [];
  }
  return [
    {
      entryPoints,
      outbase: '.',
      outdir: 'out',
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      external: ['vscode', 'mocha', 'playwright-core', '@vscode/test-electron', 'eslint'],
      logLevel: 'warning',
    },
  ];
}

/**
 * Plugin that reports the end of every (re)build in watch mode.
 * @param {string} label
 * @returns {esbuild.Plugin}
 */
function reportRebuilds(label) {
  return {
    name: 'report-rebuilds',
    setup(build) {
      build.onEnd((result) => {
        const time = new Date().toLocaleTimeString();
        const errors = result.errors.length;
        const warnings = result.warnings.length;
        console.log(`[${time}] ${label}: build finished with ${errors} error(s), ${warnings} warning(s)`);
      });
    },
  };
}

async function main() {
  const builds = tests ? testBuilds() : appBuilds;
  // Start from an empty output directory so stale files (old sourcemaps, deleted tests) never linger.
  rmSync(tests ? 'out' : 'dist', { recursive: true, force: true });

  if (watch) {
    const contexts = await Promise.all(
      builds.map((options) => {
        const label = options.outfile ?? (tests ? 'tests' : `${options.outdir}/webview.*`);
        return esbuild.context({ ...options, plugins: [...(options.plugins ?? []), reportRebuilds(label)] });
      }),
    );
    console.log('esbuild.mjs: watching for changes (Ctrl+C to stop)');
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    const stop = async () => {
      await Promise.all(contexts.map((ctx) => ctx.dispose()));
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }

  const results = await Promise.allSettled(builds.map((options) => esbuild.build(options)));
  // esbuild has already printed the diagnostics (logLevel 'warning'); just set the exit status.
  if (results.some((r) => r.status === 'rejected')) {
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
