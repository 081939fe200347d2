/**
 * Runs a list of test files in one process with uvu. scripts/test.mjs runs each file alone and sets
 * AGENTKIT_COVERAGE_RECORDS: the scenarios' coverage records are saved there, for the runner to merge
 * (./report.ts). Run alone, it writes and prints the spec coverage report itself:
 *   node --conditions=agentkit-source --import tsx conformance/harness/run.ts <file>...
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { hasRecords, saveRecords, writeCoverage } from './coverage.js';

declare global {
  var UVU_DEFER: number | undefined;
  var UVU_INDEX: number | undefined;
  var UVU_QUEUE: unknown[][];
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('run.ts: no test files given');
  process.exit(2);
}

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
for (const [index, file] of files.entries()) {
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE.push([path.relative(process.cwd(), file)]);
  await import(pathToFileURL(path.resolve(file)).href);
}
await (uvu as unknown as { exec(bail?: boolean): Promise<void> }).exec(false);
// The Platforms' own Postgres schemas (AGENTKIT_TEST_PLATFORM_STORE=postgres), once every scenario stopped its Platform.
if (process.env.AGENTKIT_TEST_PLATFORM_STORE === 'postgres') await (await import('./platform.js')).dropPlatformSchemas();

const recordsFile = process.env.AGENTKIT_COVERAGE_RECORDS;
if (recordsFile) {
  if (hasRecords()) await saveRecords(recordsFile);
} else if (hasRecords()) {
  const report = await writeCoverage(path.resolve(process.env.AGENTKIT_COVERAGE_DIR ?? '.agentkit-test'));
  console.log(`\n${report}\n`);
}
