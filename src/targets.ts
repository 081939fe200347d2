/**
 * Runner targets named on the command line: `path/to/file.ts:attr`, `file.js:attr`, `package/module:attr`. One loader
 * for every command that takes one (`resume --runner`, `agent serve`, `mcp serve`, `eval run --agent`,
 * `ui --agent`). It returns the resolved value; callers check that it is the kind they need (`describeValue` helps
 * word the error).
 *
 * Files resolve against the given working directory. TypeScript files (`.ts`, `.mts`, `.cts`, `.tsx`) load through
 * tsx's loader, registered once per process (unless tsx is already active) for both module systems: Node decides by
 * extension and the nearest package.json `type` whether a `.ts` file is ESM or CommonJS, and a `.ts` file in a
 * CommonJS package or a folder with no package.json needs tsx's CommonJS hook (with the ESM hook alone Node fails with
 * "Cannot require() ES Module ... in a cycle"). `.cts` files are required (CommonJS through tsx), everything else is
 * imported. The loader is global, not tsx's scoped `tsImport`: a scoped import would load a second copy of every
 * module the target imports, agentkit included (its own tracer, its own classes). A file that fails to load is
 * reported with its path and the first informative line of the cause. The attribute
 * may be a dotted path (`app.chain`); when it names a zero-argument function that is not a class, it is a factory and
 * is called (and awaited).
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentkitError } from './errors.js';

/** A target that does not resolve: the message names the file or module, the attribute and what was found instead. */
export class TargetLoadError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('target_load_error', message, options);
  }
}

/** A parsed target. */
export interface TargetSpec {
  /** The text as given. */
  readonly text: string;
  /** The file path or module specifier before the last `:`. */
  readonly module: string;
  /** The attribute after it (dotted path allowed). */
  readonly attribute: string;
  /** `file` for paths (relative, absolute, or with a script extension), `module` for package specifiers. */
  readonly kind: 'file' | 'module';
}

export interface LoadedTarget {
  readonly spec: TargetSpec;
  /** The resolved attribute (the factory's result for a factory). */
  readonly value: unknown;
  /** Absolute path of the loaded file. */
  readonly file: string;
}

const SCRIPT = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;

/** Split `module:attr` at its last colon. Throws TargetLoadError when the shape is wrong. */
export function parseTarget(text: string): TargetSpec {
  const colon = typeof text === 'string' ? text.lastIndexOf(':') : -1;
  // A lone colon at index 1 is a Windows drive letter (C:\x.ts), not the attribute separator.
  const driveOnly = colon === 1 && /^[A-Za-z]$/.test(text[0] ?? '');
  if (colon < 1 || driveOnly) {
    throw new TargetLoadError(`target ${JSON.stringify(text)} must be <file>:<attribute> or <module>:<attribute> (e.g. ./agents.ts:refundChain)`);
  }
  const module = text.slice(0, colon);
  const attribute = text.slice(colon + 1);
  if (!attribute || !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(attribute)) {
    throw new TargetLoadError(`target ${JSON.stringify(text)}: ${JSON.stringify(attribute)} is not an attribute name (expected e.g. refundChain or app.chain)`);
  }
  const kind = module.startsWith('.') || path.isAbsolute(module) || SCRIPT.test(module) ? 'file' : 'module';
  return { text, module, attribute, kind };
}

/**
 * Import the target's module (resolved from `cwd`) and return its attribute, calling a zero-argument factory.
 * Throws TargetLoadError when the file or module is missing, fails to load, lacks the attribute, or the factory
 * throws. `callFactory: false` returns a function attribute as it is.
 */
export async function loadTarget(text: string, options: { cwd: string; callFactory?: boolean }): Promise<LoadedTarget> {
  const spec = parseTarget(text);
  const file = resolveModule(spec, options.cwd);
  let namespace: Record<string, unknown>;
  try {
    namespace = commonJsExports(await importFile(file));
  } catch (error) {
    throw new TargetLoadError(`target '${spec.text}': could not load ${file}: ${firstCauseLine(error)}`, { cause: error });
  }
  let value: unknown = namespace;
  const walked: string[] = [];
  for (const part of spec.attribute.split('.')) {
    const holder = value as Record<string, unknown> | null | undefined;
    if (holder === null || holder === undefined || !(part in Object(holder))) {
      const where = walked.length === 0 ? `module ${file}` : `'${walked.join('.')}' in ${file}`;
      const found = walked.length === 0 ? `it exports: ${Object.keys(namespace).sort().join(', ') || '(nothing)'}` : `found ${describeValue(holder)}`;
      throw new TargetLoadError(`target '${spec.text}': ${where} has no attribute '${part}'; ${found}`);
    }
    value = holder[part];
    walked.push(part);
  }
  if (options.callFactory !== false && isFactory(value)) {
    try {
      value = await value();
    } catch (error) {
      throw new TargetLoadError(
        `target '${spec.text}': factory '${spec.attribute}' in ${file} threw: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    if (value === undefined || value === null) {
      throw new TargetLoadError(`target '${spec.text}': factory '${spec.attribute}' in ${file} returned ${String(value)} instead of a runner`);
    }
  }
  return { spec, value, file };
}

/** A short description of a value for error messages: `a function run(input)`, `an object with keys a, b`, ... */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `a function ${value.name || '(anonymous)'} taking ${value.length} argument(s)`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    const keys = Object.keys(value).slice(0, 8);
    return `${name && name !== 'Object' ? `a ${name}` : 'an object'}${keys.length ? ` with keys ${keys.join(', ')}` : ''}`;
  }
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isFactory(value: unknown): value is () => unknown {
  return typeof value === 'function' && value.length === 0 && !/^class[\s{]/.test(Function.prototype.toString.call(value));
}

function resolveModule(spec: TargetSpec, cwd: string): string {
  if (spec.kind === 'file') {
    const file = path.resolve(cwd, spec.module);
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new TargetLoadError(`target '${spec.text}': file not found: ${file} (resolved against ${cwd})`);
    }
    return file;
  }
  try {
    return createRequire(path.join(cwd, 'package.json')).resolve(spec.module);
  } catch (error) {
    throw new TargetLoadError(
      `target '${spec.text}': module '${spec.module}' could not be resolved from ${cwd}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The exports of a module: a CommonJS module compiled by tsx (a `.ts` file in a CommonJS package) reaches `import()`
 * as `{ default: module.exports }` because Node cannot see its named exports statically; its `module.exports` is
 * what its author exported.
 */
function commonJsExports(namespace: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(namespace).filter((key) => key !== 'module.exports');
  const inner = namespace.default;
  if (keys.length === 1 && keys[0] === 'default' && typeof inner === 'object' && inner !== null) return inner as Record<string, unknown>;
  return namespace;
}

async function importFile(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(file)) await ensureTypeScriptLoader();
  // A .cts file is CommonJS whatever the package says: require() runs it through tsx's CommonJS hook (import() would
  // hand its TypeScript source to Node's CommonJS parser).
  if (file.endsWith('.cts')) return createRequire(file)(file) as Record<string, unknown>;
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

let typeScriptLoader: Promise<void> | undefined;

/**
 * Make `import()` and `require()` of TypeScript work: under tsx (tests, `node --import tsx`) nothing is needed; in
 * plain Node (the built CLI), tsx's ESM and CommonJS hooks are registered for the rest of the process.
 */
function ensureTypeScriptLoader(): Promise<void> {
  typeScriptLoader ??= (async () => {
    const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
    if (/\btsx\b/.test(flags)) return;
    const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    cjs.register();
  })();
  return typeScriptLoader;
}

/**
 * The first line of an error that says what went wrong: the innermost cause's message, skipping wrapper lines such
 * as esbuild's "Transform failed with 1 error:" so the syntax error itself (with its file:line:column) is shown.
 */
export function firstCauseLine(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const text = inner instanceof Error ? inner.message : String(inner);
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const informative = lines.find((line) => !/^(?:Transform failed with \d+ errors?:?|Build failed with \d+ errors?:?)$/.test(line));
  return informative ?? lines[0] ?? (inner instanceof Error ? inner.name : 'unknown error');
}
