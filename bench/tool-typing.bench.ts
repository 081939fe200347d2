/**
 * Type-checking cost of `tool()` in a consumer project: type instantiations per call, from `tsc --extendedDiagnostics`
 * over the built `.d.ts` (run `npm run build` first), against the signature before the fix (`execute`'s arguments
 * typed `Static<T>` without `NoInfer`), declared in the same fixture and measured in the same run.
 * Target: under 100,000 instantiations per call.
 *
 *   node scripts/bench.mjs tool-typing
 *
 * Per call = (instantiations of a file with 10 calls - a file with the same imports and no call) / 10. The "before"
 * figure is one call (a call costs seconds there) minus the same empty file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = 10;
const TARGET = 100_000;

const dir = mkdtempSync(path.join(tmpdir(), 'agentkit-tool-typing-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

// The consumer sees agentkit as a package (its exports, its built .d.ts) and this checkout's installed packages.
const modules = path.join(dir, 'node_modules');
mkdirSync(modules);
for (const name of readdirSync(path.join(root, 'node_modules'))) {
  if (name !== '.bin' && name !== 'agentkit') symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
}
symlinkSync(root, path.join(modules, 'agentkit'));
writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'tool-typing', private: true, type: 'module' }));

const header = `import { tool, Type, type Static, type TSchema } from 'agentkit';
export declare function toolBefore<T extends TSchema>(options: { name: string; parameters?: T; execute: (args: Static<T>) => unknown }): void;
`;
const schema = (i: number) => `Type.Object({ id_${i}: Type.String(), count: Type.Integer({ minimum: 1 }), note: Type.Optional(Type.String()) })`;
const call = (fn: string, i: number) =>
  `export const t${i} = ${fn}({ name: 'tool_${i}', parameters: ${schema(i)}, execute: (args) => args.id_${i}.length + args.count });\n`;

function instantiations(name: string, body: string): number {
  writeFileSync(path.join(dir, `${name}.ts`), header + body);
  const config = {
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: ['node'] },
    files: [`${name}.ts`],
  };
  writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify(config));
  const out = execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${name}.json`, '--extendedDiagnostics'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return Number(/Instantiations:\s+(\d+)/.exec(out)![1]);
}

const empty = instantiations('empty', `export const schema = ${schema(0)};\n`);
const after = instantiations('after', Array.from({ length: CALLS }, (_, i) => call('tool', i)).join(''));
const before = instantiations('before', call('toolBefore', 0));
const perCall = Math.round((after - empty) / CALLS);
const perCallBefore = before - empty;

console.log(`empty file (imports, one schema)    ${empty} instantiations`);
console.log(`tool(), per call (${CALLS} calls)         ${perCall} instantiations`);
console.log(`before the fix, per call (1 call)   ${perCallBefore} instantiations`);
console.log(`ratio after/before                  ${(perCall / perCallBefore).toFixed(4)}x`);
console.log(`target under ${TARGET} per call     ${perCall < TARGET ? 'met' : 'NOT met'}`);
process.exitCode = perCall < TARGET ? 0 : 1;
