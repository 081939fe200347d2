import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { chunkText, markdownSections } from './chunking.js';

const test = suite('kb: chunking');

const doc = [
  '# Guide',
  'Intro paragraph.',
  '',
  '## Install',
  'Run the installer.',
  '```',
  '# not a heading inside code',
  '```',
  '',
  '### Linux',
  'Use the package.',
  '# Reference',
  'All flags.',
].join('\n');

test('markdown sections follow headings (not inside fenced code) and keep the heading path', () => {
  const sections = markdownSections(doc);
  assert.equal(
    sections.map((s) => s.heading),
    ['Guide', 'Guide > Install', 'Guide > Install > Linux', 'Reference'],
  );
  assert.ok(doc.slice(sections[1]!.start, sections[1]!.end).includes('# not a heading inside code'));
  const chunks = chunkText(doc, sections, { chunkSize: 200, overlap: 20 });
  assert.equal(
    chunks.map((c) => c.heading),
    ['Guide', 'Guide > Install', 'Guide > Install > Linux', 'Reference'],
    'no chunk crosses a heading',
  );
  for (const c of chunks) assert.is(doc.slice(c.start, c.end), c.content);
});

test('paragraphs are packed up to the size; long ones cut at sentences; overlap repeats real text from the previous chunk', () => {
  const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`);
  const text = `${sentences.slice(0, 20).join(' ')}\n\n${sentences.slice(20).join(' ')}`;
  const chunks = chunkText(text, undefined, { chunkSize: 200, overlap: 60 });
  assert.ok(chunks.length >= 8, `${chunks.length} chunks`);
  for (const [i, c] of chunks.entries()) {
    assert.is(text.slice(c.start, c.end), c.content, 'offsets point at the content');
    assert.is(c.ordinal, i);
    if (i === 0) continue;
    const previous = chunks[i - 1]!;
    assert.ok(c.start < previous.end, `chunk ${i} overlaps the previous one`);
    assert.ok(previous.end - c.start <= 60, 'by at most the overlap');
    assert.ok(/\s/.test(text[c.start - 1]!), 'starting at a word boundary');
    assert.ok(c.end - previous.end <= 200 + 2, 'new text is at most chunkSize (plus the separator before it)');
  }
  assert.is(chunks.at(-1)!.end, text.length, 'everything is covered');
  const noOverlap = chunkText(text, undefined, { chunkSize: 200, overlap: 0 });
  for (let i = 1; i < noOverlap.length; i++) assert.ok(noOverlap[i]!.start >= noOverlap[i - 1]!.end);
});

test('a word longer than the size is cut; bad sizes are refused', () => {
  const text = 'x'.repeat(130);
  assert.equal(
    chunkText(text, undefined, { chunkSize: 50, overlap: 0 }).map((c) => [c.start, c.end]),
    [
      [0, 50],
      [50, 100],
      [100, 130],
    ],
  );
  assert.throws(() => chunkText(text, undefined, { chunkSize: 10 }), /chunkSize/);
  assert.throws(() => chunkText(text, undefined, { chunkSize: 100, overlap: 100 }), /overlap/);
  assert.equal(chunkText('   \n\n  '), []);
});

test.run();
