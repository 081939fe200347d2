/**
 * The spec coverage report of a whole run: merges the coverage records each test file's process saved
 * (./coverage.ts `saveRecords`), writes coverage.json and coverage.md into AGENTKIT_COVERAGE_DIR (default
 * `.agentkit-test`) and prints the report. Invoked by scripts/test.mjs after the last file:
 *   node --conditions=agentkit-source --import tsx conformance/harness/report.ts <records.json>...
 */
import path from 'node:path';
import { loadRecords, writeCoverage } from './coverage.js';

for (const file of process.argv.slice(2)) await loadRecords(file);
const report = await writeCoverage(path.resolve(process.env.AGENTKIT_COVERAGE_DIR ?? '.agentkit-test'));
console.log(`\n${report}\n`);
