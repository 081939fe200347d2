/**
 * Checking a `tools/call`'s arguments against the input schema the tool advertised, before anything runs. A call that
 * does not match is the client's mistake: a JSON-RPC `-32602` (invalid params) error whose message names each
 * offending path, with the problems as `data.errors`. Schema `default`s are filled in first, as the tool itself does.
 */
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { ConfigError } from '../errors.js';
import type { JsonObject, JsonValue } from '../llm/messages.js';
import { withDefaults } from '../tools/defaults.js';

/** One thing wrong with the arguments: a JSON pointer into them and what is wrong there. */
export interface ArgumentProblem {
  path: string;
  message: string;
}

/** A JSON-RPC error the MCP SDK sends as is: it answers with `code`, `message` and `data` of what a handler throws. */
export class InvalidParamsError extends Error {
  readonly code = -32602;
  readonly data: { tool: string; errors: ArgumentProblem[] };

  constructor(tool: string, errors: ArgumentProblem[]) {
    super(`Invalid params: arguments of tool '${tool}': ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    this.name = 'InvalidParamsError';
    this.data = { tool, errors };
  }
}

interface Checker {
  Check(value: unknown): boolean;
  Errors(value: unknown): Array<{ keyword: string; schemaPath: string; instancePath: string; params: Record<string, unknown>; message: string }>;
}

/**
 * A checker for one tool's advertised schema: returns the problems of `args`, none when they match. Throws
 * ConfigError when the schema cannot be compiled (the tool could not be listed honestly).
 */
export function argumentChecker(tool: string, schema: Record<string, unknown>): (args: Record<string, unknown>) => ArgumentProblem[] {
  let checker: Checker;
  try {
    checker = Compile(schema as TSchema) as unknown as Checker;
  } catch (error) {
    throw new ConfigError(`tool '${tool}': its input schema is not a usable JSON schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  return (args) => {
    const filled = withDefaults(schema as JsonObject, args as JsonValue);
    if (checker.Check(filled)) return [];
    const problems: ArgumentProblem[] = [];
    for (const error of checker.Errors(filled)) {
      const at = error.instancePath;
      if (error.keyword === 'additionalProperties') {
        const names = (error.params.additionalProperties as string[] | undefined) ?? [];
        const takes = at === '' ? ` (the tool takes: ${known.join(', ') || 'no arguments'})` : '';
        for (const name of names) problems.push({ path: `${at}/${name}`, message: `unknown argument '${name}'${takes}` });
      } else if (error.keyword === 'required') {
        for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
          problems.push({ path: `${at}/${name}`, message: `required argument '${name}' is missing` });
        }
      } else if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) {
        // The same extra property again, as the `false` subschema it failed: reported above by name.
      } else {
        problems.push({ path: at === '' ? '/' : at, message: error.message });
      }
    }
    return dedupe(problems.length > 0 ? problems : [{ path: '/', message: 'the arguments do not match the input schema' }]);
  };
}

function dedupe(problems: ArgumentProblem[]): ArgumentProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
