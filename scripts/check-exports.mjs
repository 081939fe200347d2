#!/usr/bin/env node
/**
 * The public API snapshot: every name each entry point of package.json's `exports` gives a consumer, with its kind
 * (class, function, const, let, enum, namespace: values; interface, type: types only), compared with the committed
 * conformance/fixtures/api/exports.json (docs/adr/0013-exports-snapshot.md). Kinds come from the TypeScript checker
 * over the sources; whether a name is a value comes from importing the entry point, so a class exported with
 * `export type` is a `type`, as it is for a consumer.
 *
 *   make check-exports     fail, naming each added, removed or changed export, when the API differs from the snapshot
 *   make update-exports    rewrite the snapshot (review its diff: it is the change to the public API)
 *
 * Runs under tsx with the `agentkit-source` condition (the Makefile's targets do), so no build is needed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const snapshotFile = path.join(root, 'conformance/fixtures/api/exports.json');
const update = process.argv.includes('--update');

/** `agentkit`, `agentkit/client`, ... -> the source file of the `agentkit-source` condition. */
function entryPoints() {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const entries = {};
  for (const [key, target] of Object.entries(manifest.exports)) {
    if (typeof target !== 'object' || !target['agentkit-source']) continue;
    entries[key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`] = path.join(root, target['agentkit-source']);
  }
  return entries;
}

const VALUE_KINDS = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.ValueModule, 'namespace'],
];
const TYPE_KINDS = [
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
  [ts.SymbolFlags.Class, 'type'],
  [ts.SymbolFlags.Enum, 'type'],
];

/** The kind of one exported symbol, given whether the entry point has it as a value at run time. */
function kindOf(symbol, isValue) {
  const flags = symbol.flags;
  if (isValue) {
    for (const [flag, kind] of VALUE_KINDS) if (flags & flag) return kind;
    if (flags & ts.SymbolFlags.Variable) {
      const declaration = symbol.valueDeclaration;
      const list = declaration && ts.isVariableDeclaration(declaration) ? declaration.parent : undefined;
      return list && ts.isVariableDeclarationList(list) && !(list.flags & ts.NodeFlags.Const) ? 'let' : 'const';
    }
    return 'value';
  }
  for (const [flag, kind] of TYPE_KINDS) if (flags & flag) return kind;
  return 'type';
}

async function currentApi() {
  const entries = entryPoints();
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(Object.values(entries), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const api = {};
  for (const [name, file] of Object.entries(entries)) {
    const runtime = new Set(Object.keys(await import(pathToFileURL(file).href)));
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file));
    const names = {};
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      names[exported.name] = kindOf(symbol, runtime.has(exported.name));
      runtime.delete(exported.name);
    }
    for (const extra of runtime) names[extra] = 'value';
    api[name] = Object.fromEntries(Object.entries(names).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  return api;
}

function differences(before, after) {
  const lines = [];
  for (const entry of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[entry];
    const now = after[entry];
    if (!was) lines.push(`+ entry point ${entry} (${Object.keys(now).length} names)`);
    else if (!now) lines.push(`- entry point ${entry}`);
    else
      for (const name of new Set([...Object.keys(was), ...Object.keys(now)])) {
        if (!(name in now)) lines.push(`- ${entry}: ${name} (${was[name]})`);
        else if (!(name in was)) lines.push(`+ ${entry}: ${name} (${now[name]})`);
        else if (was[name] !== now[name]) lines.push(`~ ${entry}: ${name} was ${was[name]}, now ${now[name]}`);
      }
  }
  return lines;
}

const api = await currentApi();
const text = `${JSON.stringify(api, null, 2)}\n`;
if (update) {
  writeFileSync(snapshotFile, text);
  const counts = Object.entries(api).map(([entry, names]) => `${entry} ${Object.keys(names).length}`);
  console.log(`wrote ${path.relative(root, snapshotFile)}: ${counts.join(', ')}`);
  process.exit(0);
}
let committed;
try {
  committed = JSON.parse(readFileSync(snapshotFile, 'utf8'));
} catch (error) {
  console.error(`cannot read ${path.relative(root, snapshotFile)} (${error.message}); run \`make update-exports\` and commit it`);
  process.exit(1);
}
const changes = differences(committed, api);
if (changes.length > 0) {
  console.error(`The public API differs from ${path.relative(root, snapshotFile)}:`);
  for (const line of changes) console.error(`  ${line}`);
  console.error('If the change is intended, run `make update-exports` and commit the snapshot with it.');
  process.exit(1);
}
const total = Object.values(api).reduce((n, names) => n + Object.keys(names).length, 0);
console.log(`public API matches the snapshot: ${Object.keys(api).length} entry points, ${total} names`);
// Importing the entry points may leave timers or handles (tracing, pools) behind: the check is done.
process.exit(0);
