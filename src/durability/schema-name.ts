import { InvalidSchemaNameError } from './errors.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Check a Postgres schema name against `[A-Za-z_][A-Za-z0-9_]*` and return it; throws InvalidSchemaNameError
 * otherwise. Called before any SQL is built, because the schema is interpolated into statements (identifiers cannot
 * be bound parameters).
 */
export function validateSchemaName(schema: string): string {
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) throw new InvalidSchemaNameError(String(schema));
  return schema;
}
