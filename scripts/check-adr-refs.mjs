#!/usr/bin/env node
/**
 * `make check-adr-refs`: every citation of a design decision names a record that exists. Decisions live in
 * docs/adr/NNNN-title.md (one topic each); the old numbered list (docs/decisions.md) is gone, so any "decision <number>"
 * citation is stale, and an "ADR <four digits>" (or a docs/adr/<four digits> path) must name a file of docs/adr/.
 *
 *   node scripts/check-adr-refs.mjs            check the repository's tracked text files
 *   node scripts/check-adr-refs.mjs <file>...  check those files only
 *
 * Prints each bad citation as `file:line: text` and exits 1 when there is one.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const adrDir = path.join(root, 'docs', 'adr');
const records = new Set(
  readdirSync(adrDir)
    .map((name) => /^(\d{4})-.+\.md$/.exec(name)?.[1])
    .filter(Boolean),
);

/** Where citations live: sources, tests, scripts, docs; not generated output, lockfiles or fixtures' data. */
const SCANNED = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|tsp|yaml|yml)$|^Makefile$|^\.ci\/run$/;
const files =
  process.argv.length > 2
    ? process.argv.slice(2).map((file) => path.relative(root, path.resolve(file)))
    : execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
        .split('\n')
        .filter((file) => file !== '' && SCANNED.test(file) && !file.startsWith('generated/') && !file.startsWith('node_modules/'));

// A numbered decision of the removed list: "decision N", "decisions N, M", "Decisions N-M" (N a number).
const DECISION = /\bdecisions? (?:#|no\.? ?)?\d+/gi;
// An ADR by number: "ADR NNNN", "ADRs NNNN and MMMM", "docs/adr/NNNN-..."; links `(NNNN-title.md)` inside docs/adr.
const ADR = /\bADRs? (\d{4}(?:(?:, | and | or |-)\d{4})*)|\badr\/(\d{4})\b/gi;

const SELF = 'scripts/check-adr-refs.mjs';
const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    continue; // listed by git but deleted in the working tree
  }
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    const where = `${file}:${index + 1}`;
    if (file !== SELF && /\bdecisions\.md\b/.test(line)) {
      problems.push(`${where}: names docs/decisions.md, which is gone; cite the ADR that holds the decision`);
    }
    // A citation wrapped across lines: "decision" ends this line and the number opens the next (after `//` or `*`).
    if (/\bdecisions?$/i.test(line) && /^\s*(?:\/\/|\*|#)?\s*\d/.test(lines[index + 1] ?? '')) {
      problems.push(`${where}: a decision number wrapped onto the next line cites the removed numbered list; cite the ADR`);
    }
    for (const match of line.matchAll(DECISION)) {
      problems.push(`${where}: '${match[0]}' cites the removed numbered list (docs/decisions.md); cite the ADR that holds it`);
    }
    for (const match of line.matchAll(ADR)) {
      const numbers = match[1] ? match[1].match(/\d{4}/g) : [match[2]];
      for (const number of numbers) {
        if (!records.has(number)) problems.push(`${where}: '${match[0]}' names ADR ${number}, which is not in docs/adr/`);
      }
    }
    if (file.startsWith('docs/adr/')) {
      for (const link of line.matchAll(/\]\((\d{4})-[^)]*\.md\)/g)) {
        if (!records.has(link[1])) problems.push(`${where}: link to ADR ${link[1]}, which is not in docs/adr/`);
      }
    }
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-adr-refs: ${problems.length} bad citation(s); records are docs/adr/NNNN-*.md (index: docs/adr/README.md)`);
  process.exit(1);
}
console.log(`check-adr-refs: ${files.length} files, every decision citation names an existing ADR (${records.size} records)`);
