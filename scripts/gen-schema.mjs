#!/usr/bin/env node
// Generates the zod schemas of both wire versions from the official ACP JSON schemas shipped in
// @agentclientprotocol/sdk: src/acp/schema.gen.ts from schema/v1/schema.json, src/acp/v2/schema.gen.ts from
// schema/v2/schema.json. The schema's own deserialisation hints decide how tolerant each field is:
//   x-deserialize-default-on-error   -> an invalid value is dropped (with a warning), not fatal
//   x-deserialize-skip-invalid-items -> invalid array items are dropped (with a warning)
//   x-deserialize-default-on-null    -> null means "absent"
// On top of that, every optional field accepts null, and every object keeps unknown keys (and _meta).
//
//   node scripts/gen-schema.mjs          write the file
//   node scripts/gen-schema.mjs --check  exit 1 when a committed file is out of date
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sdkDir = join(root, 'node_modules/@agentclientprotocol/sdk');
const sdkPackage = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8'));
const VERSIONS = [
  { version: 'v1', outPath: join(root, 'src/acp/schema.gen.ts'), tolerance: './tolerance' },
  { version: 'v2', outPath: join(root, 'src/acp/v2/schema.gen.ts'), tolerance: '../tolerance' },
];
/** The definitions of the version being generated. */
let defs = {};

// JSON-RPC envelopes: the connection handles framing, so these unions of every method are not needed as zod.
const SKIP = new Set([
  'AgentRequest',
  'AgentResponse',
  'AgentNotification',
  'ClientRequest',
  'ClientResponse',
  'ClientNotification',
  'ExtRequest',
  'ExtResponse',
  'ExtNotification',
]);

const refName = (ref) => {
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  if (!m) throw new Error(`unsupported $ref ${ref}`);
  return m[1];
};

/** Names referenced by a node, for ordering the output. */
function refsOf(node, out = new Set()) {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref') out.add(refName(v));
      else refsOf(v, out);
    }
  }
  return out;
}

const lit = (v) => JSON.stringify(v);
const types = (node) => (Array.isArray(node.type) ? node.type : node.type ? [node.type] : []);
const isNullNode = (n) => n && n.type === 'null' && Object.keys(n).every((k) => k === 'type' || k === 'description' || k === 'title');

/** True when a node admits null. */
function admitsNull(node) {
  if (types(node).includes('null')) return true;
  return (node.anyOf ?? []).some(isNullNode);
}

/** The const value of `prop` in a variant, if it pins one. */
function constOf(variant, prop) {
  return variant?.properties?.[prop]?.const;
}

/** Shape entries `{ key: expr }` of an object node's own properties. */
function shapeOf(node) {
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {}).map(([key, prop]) => `${lit(key)}: ${field(prop, required.has(key))}`);
}

function field(prop, required) {
  const defaultOnError = prop['x-deserialize-default-on-error'] === true;
  const nullable = admitsNull(prop);
  const base = expr(prop, { stripNull: true });
  if (required) {
    const e = nullable ? `${base}.nullable()` : base;
    if (defaultOnError && prop.default !== undefined) return `recover(${e}, ${lit(prop.default)})`;
    return e;
  }
  // Optional: null is always accepted. Where the schema admits null it is kept, otherwise it means "absent".
  const e = nullable ? `${base}.nullish()` : `nullAsAbsent(${base})`;
  return defaultOnError ? `lenient(${e})` : e;
}

/** A zod expression for a node. `stripNull` drops a null alternative (the caller adds nullability). */
function expr(node, opts = {}) {
  if (node === true || node === undefined) return 'z.unknown()';
  if (node.$ref) return refName(node.$ref);
  const t = types(node).filter((x) => !(opts.stripNull && x === 'null'));

  if (node.allOf && !node.properties && !node.oneOf && !node.anyOf) {
    if (node.allOf.length !== 1) throw new Error(`unsupported allOf ${lit(node)}`);
    return expr(node.allOf[0]);
  }
  const alts = node.oneOf ?? node.anyOf;
  if (alts && !node.properties && t.length <= 1 && (t[0] ?? 'object') !== 'object' && t[0] !== undefined) {
    throw new Error(`unsupported typed union ${lit(node)}`);
  }
  if (alts && !node.properties) {
    const nonNull = alts.filter((a) => !(opts.stripNull && isNullNode(a)));
    if (nonNull.length === 1) return expr(nonNull[0]);
    // String enumerations.
    if (nonNull.every((a) => a.const !== undefined && a.type === 'string')) {
      return `z.enum([${nonNull.map((a) => lit(a.const)).join(', ')}])`;
    }
    // Integer codes with an open "other" member (ErrorCode).
    if (nonNull.every((a) => a.type === 'integer')) return 'z.number().int()';
    return union(nonNull, {});
  }
  if (alts && node.properties) return union(alts, node);

  if (node.const !== undefined) return `z.literal(${lit(node.const)})`;
  if (node.enum) return `z.enum([${node.enum.map(lit).join(', ')}])`;
  if (t.length > 1) throw new Error(`unsupported multi-type ${lit(node)}`);
  switch (t[0]) {
    case 'string': {
      let e = 'z.string()';
      if (node.minLength !== undefined) e += `.min(${node.minLength})`;
      return e;
    }
    case 'integer': {
      let e = 'z.number().int()';
      if (node.minimum !== undefined) e += `.min(${node.minimum})`;
      if (node.maximum !== undefined) e += `.max(${node.maximum})`;
      return e;
    }
    case 'number':
      return 'z.number()';
    case 'boolean':
      return 'z.boolean()';
    case 'null':
      return 'z.null()';
    case 'array': {
      const item = expr(node.items);
      return node['x-deserialize-skip-invalid-items'] ? `lenientArray(${item})` : `z.array(${item})`;
    }
    case 'object':
    case undefined: {
      if (node.properties) return `z.looseObject({ ${shapeOf(node).join(', ')} })`;
      if (t[0] === undefined) return 'z.unknown()';
      const ap = node.additionalProperties;
      if (ap && ap !== true) return `z.record(z.string(), ${expr(ap)})`;
      return 'z.record(z.string(), z.unknown())';
    }
    default:
      throw new Error(`unsupported type ${t[0]}`);
  }
}

/** True when a definition compiles to a zod object (which can be extended). */
function isPlainObject(node) {
  if (node.$ref) return isPlainObject(defs[refName(node.$ref)]);
  if (node.allOf?.length === 1 && !node.properties) return isPlainObject(node.allOf[0]);
  return Boolean(node.properties) && !node.oneOf && !node.anyOf;
}

/** Variants of a oneOf/anyOf, each merged with the parent's own properties. */
function union(alts, parent) {
  const baseShape = parent.properties ? shapeOf(parent) : [];
  const firstProps = Object.keys(alts[0]?.properties ?? {});
  const discriminator =
    parent.discriminator?.propertyName ??
    (firstProps.length === 1 && alts.every((a) => constOf(a, firstProps[0]) !== undefined) ? firstProps[0] : undefined);

  const variants = alts.map((alt) => {
    const own = shapeOf(alt);
    // An open "other" member: its tag must be none of the known tags.
    if (alt.not?.anyOf) {
      const [prop] = Object.keys(alt.properties);
      const known = alt.not.anyOf.map((n) => constOf(n, prop));
      own.splice(0, own.length, `${lit(prop)}: z.string().refine((v) => !${lit(known)}.includes(v))`);
    }
    // A variant's own property (a pinned tag) replaces the parent's of the same name.
    const ownKeys = new Set(own.map((entry) => entry.slice(0, entry.indexOf(':'))));
    const shape = [...baseShape.filter((entry) => !ownKeys.has(entry.slice(0, entry.indexOf(':')))), ...own];
    let e;
    const refs = (alt.allOf ?? []).map((a) => refName(a.$ref));
    if (refs.length === 1 && !shape.length) e = refs[0];
    else if (refs.length === 1 && isPlainObject(defs[refs[0]])) e = `${refs[0]}.extend({ ${shape.join(', ')} })`;
    else if (refs.length === 1) e = `${refs[0]}.and(z.looseObject({ ${shape.join(', ')} }))`;
    else if (refs.length === 0)
      e = alt.$ref ? refName(alt.$ref) : alt.type && alt.type !== 'object' && !alt.properties ? expr(alt) : `z.looseObject({ ${shape.join(', ')} })`;
    else throw new Error(`unsupported allOf in variant ${lit(alt)}`);
    if (alt.anyOf) e = `${e}.and(${union(alt.anyOf, {})})`;
    return e;
  });
  if (discriminator && alts.every((a) => constOf(a, discriminator) !== undefined)) {
    return `z.discriminatedUnion(${lit(discriminator)}, [${variants.join(', ')}])`;
  }
  return `z.union([${variants.join(', ')}])`;
}

/** The zod module of one version's schema. */
function generate(version, tolerance) {
  defs = JSON.parse(readFileSync(join(sdkDir, `schema/${version}/schema.json`), 'utf8')).$defs;
  // Order definitions so that each follows the ones it references.
  const names = Object.keys(defs)
    .filter((n) => !SKIP.has(n))
    .sort();
  const ordered = [];
  const state = new Map();
  function visit(name, stack) {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`recursive schema: ${[...stack, name].join(' -> ')}`);
    state.set(name, 'visiting');
    for (const dep of [...refsOf(defs[name])].sort()) visit(dep, [...stack, name]);
    state.set(name, 'done');
    ordered.push(name);
  }
  for (const n of names) visit(n, []);

  const doc = (node) => {
    const d = (node.description ?? '').split('\n')[0].trim();
    return d ? `/** ${d.replace(/\*\//g, '*\\/')} */\n` : '';
  };

  let out = `// Generated by scripts/gen-schema.mjs from @agentclientprotocol/sdk@${sdkPackage.version} schema/${version}/schema.json.
// Do not edit by hand: run \`node scripts/gen-schema.mjs\`.
/* eslint-disable */
import { z } from 'zod';
import { lenient, lenientArray, nullAsAbsent, recover } from '${tolerance}';

`;
  for (const name of ordered) {
    const node = defs[name];
    out += `${doc(node)}export const ${name} = ${expr(node)};\nexport type ${name} = z.output<typeof ${name}>;\n\n`;
  }
  out += `/** Every generated definition, by its name in the JSON schema. */
export const definitions = {\n${ordered.map((n) => `  ${n},`).join('\n')}\n} as const;\n`;

  return out;
}

let stale = false;
for (const { version, outPath, tolerance } of VERSIONS) {
  const out = generate(version, tolerance);
  if (!process.argv.includes('--check')) writeFileSync(outPath, out);
  else if (!existsSync(outPath) || readFileSync(outPath, 'utf8') !== out) {
    process.stderr.write(`${outPath} is out of date: run node scripts/gen-schema.mjs\n`);
    stale = true;
  }
}
if (stale) process.exit(1);
