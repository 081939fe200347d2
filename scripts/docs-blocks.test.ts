/**
 * The docs runner's reading half (scripts/docs-blocks.mjs): which fences count, what a marker may say, and the 15%
 * rule behind `make check-docs` (docs/adr/0061-docs-that-run.md).
 */
import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
// @ts-expect-error a plain ES module without declarations (scripts/ is not type-checked)
import { extractBlocks, parseMarker, SKIP_REASONS, summarize } from './docs-blocks.mjs';

const test = suite('docs runner: blocks and markers');

const FENCE = '```';

function doc(...parts: string[]): string {
  return parts.join('\n');
}

test('counts sh, bash, shell, ts and typescript fences; console, text and json are not counted', () => {
  const blocks = extractBlocks(
    'x.md',
    doc(
      `${FENCE}bash`,
      'echo one',
      FENCE,
      `${FENCE}console`,
      '$ echo not run',
      FENCE,
      `${FENCE}ts`,
      "console.log('two')",
      FENCE,
      `${FENCE}json`,
      '{}',
      FENCE,
      `${FENCE}sh`,
      'echo three',
      FENCE,
    ),
  );
  assert.equal(
    blocks.map((b: { kind: string; line: number; code: string }) => [b.kind, b.line, b.code]),
    [
      ['shell', 1, 'echo one'],
      ['ts', 7, "console.log('two')"],
      ['shell', 13, 'echo three'],
    ],
  );
});

test('a fence inside another kind of block is not a block of its own', () => {
  const blocks = extractBlocks('x.md', doc('````markdown', `${FENCE}bash`, 'echo inner', FENCE, '````', `${FENCE}sh`, 'echo outer', FENCE));
  assert.equal(
    blocks.map((b: { code: string }) => b.code),
    ['echo outer'],
  );
});

test('a marker applies to the next block, across blank lines', () => {
  const blocks = extractBlocks(
    'x.md',
    doc(`${FENCE}sh`, 'echo a', FENCE, '<!-- docs-runner: continue; background port=8000; timeout=90 -->', '', `${FENCE}sh`, 'serve', FENCE),
  );
  assert.equal(blocks[0].marker, {});
  assert.equal(blocks[1].marker, { continue: true, background: 8000, timeoutSeconds: 90 });
});

test('skip takes one of the three reasons, and nothing else', () => {
  assert.equal([...SKIP_REASONS], ['needs a provider key', 'needs a public network', 'shows output only']);
  for (const reason of SKIP_REASONS) assert.equal(parseMarker(` skip reason="${reason}" `), { skip: reason });
  assert.throws(
    () => parseMarker('skip reason="too slow"'),
    /skip reason "too slow" is not allowed \(one of: needs a provider key, needs a public network, shows output only\)/,
  );
  assert.throws(() => parseMarker('skip'), /skip needs reason=/);
  assert.throws(() => parseMarker('skip reason="shows output only"; continue'), /a skipped block takes no other directive/);
  assert.throws(() => parseMarker('retry'), /unknown directive 'retry'/);
  assert.throws(() => parseMarker('timeout=0'), /at least 1 second/);
  assert.equal(parseMarker('file=support.ts; continue'), { file: 'support.ts', continue: true });
  assert.equal(parseMarker('env A=1; env B_2=x'), { env: { A: '1', B_2: 'x' } });
  assert.throws(() => parseMarker('env 1A=x'), /unknown directive/);
  assert.throws(() => parseMarker('file=../x.ts'), /unknown directive/);
});

test('a malformed or stray marker names the file and line', () => {
  assert.throws(
    () => extractBlocks('docs/a.md', doc('text', '<!-- docs-runner: skip reason="flaky" -->', `${FENCE}sh`, 'x', FENCE)),
    /^docs\/a\.md:2: skip reason "flaky"/,
  );
  assert.throws(
    () => extractBlocks('docs/a.md', doc('<!-- docs-runner: continue -->', 'prose', `${FENCE}sh`, 'x', FENCE)),
    /docs\/a\.md:1: a docs-runner marker not followed by/,
  );
  assert.throws(
    () => extractBlocks('docs/a.md', doc('<!-- docs-runner: postgres -->', `${FENCE}json`, '{}', FENCE)),
    /docs\/a\.md:1: a docs-runner marker before a 'json' block/,
  );
  assert.throws(
    () => extractBlocks('docs/a.md', doc('<!-- docs-runner: continue -->', `${FENCE}sh`, 'x', FENCE)),
    /docs\/a\.md:1: continue on the first block/,
  );
  assert.throws(() => extractBlocks('docs/a.md', doc('<!-- docs-runner: postgres -->')), /docs\/a\.md:1: a docs-runner marker not followed by/);
});

test('summary: the exact count line, and at most 15% of the blocks marked', () => {
  const run = { marker: {} };
  const key = { marker: { skip: 'needs a provider key' } };
  const output = { marker: { skip: 'shows output only' } };
  const within = summarize([...Array(17).fill(run), key, key, output]); // 3 of 20 = 15%
  assert.is(within.line, '17 blocks run, 3 marked (reasons: needs a provider key 2, shows output only 1)');
  assert.ok(within.withinLimit);
  const over = summarize([...Array(16).fill(run), key, key, output, output]); // 4 of 20 = 20%
  assert.is(over.line, '16 blocks run, 4 marked (reasons: needs a provider key 2, shows output only 2)');
  assert.not.ok(over.withinLimit);
  assert.is(summarize([run]).line, '1 blocks run, 0 marked (reasons: none)');
});

test.run();
