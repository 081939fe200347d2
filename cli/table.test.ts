import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
import { table, wrapText } from './table.js';

const test = suite('cli table');

test('a narrow table is left as it is, numeric columns right-aligned', () => {
  assert.equal(
    table(
      ['NAME', 'N'],
      [
        ['a', '1'],
        ['bbb', '22'],
      ],
      [1],
    ),
    ['NAME   N', 'a      1', 'bbb   22'],
  );
});

test('a wide table fits 100 columns: ids cut to 12 first, then the widest text column, cut cells end in …', () => {
  const id = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
  const context = JSON.stringify({ amount: 50000, policy: 'high-value', customer: 'ACME Corporation', note: 'x'.repeat(40) });
  const lines = table(['EXECUTION ID', 'CHAIN', 'NODE', 'CREATED AT', 'CONTEXT'], [[id, 'refund', 'approval', '2026-11-24T01:00:00.000Z', context]], {
    ids: [0],
  });
  for (const line of lines) assert.ok(line.length <= 100, `${line.length}: ${line}`);
  assert.ok(lines[1]!.startsWith('3f2a9c1e-5b…  refund'), lines[1]);
  assert.match(lines[1]!, /\{"amount":50000.*…$/);
  assert.is(lines[0]!.indexOf('CHAIN'), lines[1]!.indexOf('refund'), 'columns stay aligned');
});

test('a whole column (the handle the next command takes) is never cut: the other columns give way', () => {
  const id = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
  const context = JSON.stringify({ amount: 50000, policy: 'high-value', customer: 'ACME Corporation', note: 'x'.repeat(40) });
  const lines = table(
    ['EXECUTION ID', 'CHAIN', 'NODE', 'REASON', 'AGENT PATH', 'CREATED AT', 'CONTEXT'],
    [[id, 'refund-flow', 'approval', 'manager_approval', 'agent:support', '2026-11-24T01:00:00.000Z', context]],
    { whole: [0] },
  );
  for (const line of lines) assert.ok(line.length <= 100, `${line.length}: ${line}`);
  assert.ok(lines[1]!.startsWith(`${id}  `), lines[1]);
  assert.match(lines[1]!, /…$/);
});

test('an id column is not cut when the table fits', () => {
  const id = '0af7651916cd43dd8448eb211c80319c';
  assert.equal(table(['TRACE ID', 'NAME'], [[id, 'agent.support']], { ids: [0] }), [`TRACE ID                          NAME`, `${id}  agent.support`]);
});

test('a wrap column wraps within its column instead of being cut, after the other columns shrank; whole columns stay whole', () => {
  const time = '2026-11-24T01:00:00.123456Z';
  const lines = table(['ID', 'NOTE', 'REASON', 'CREATED AT'], [['exec-1', 'x'.repeat(30), 'manager_approval needed for a large refund', time]], {
    wrap: [2],
    whole: [3],
    width: 60,
  });
  for (const line of lines) assert.ok(line.length <= 60, `${line.length}: ${line}`);
  assert.ok(lines[1]!.includes(time), lines[1]);
  const reason = lines
    .slice(1)
    .map((line) => line.slice(lines[0]!.indexOf('REASON'), lines[0]!.indexOf('CREATED AT')).trim())
    .join(' ');
  assert.is(reason.replace(/_ /g, '_'), 'manager_approval needed for a large refund');
  assert.match(lines[1]!, /x…/, 'the other text column was cut first');
});

test('an unlimited width (piped output) cuts nothing', () => {
  const long = 'y'.repeat(300);
  assert.equal(table(['A', 'B'], [['1', long]], { ids: [0], width: Number.POSITIVE_INFINITY }), ['A  B', `1  ${long}`]);
});

test('a cut time-ordered trace id keeps its tail (its head is a clock other runs share)', () => {
  const id = '01a22062aabbccddeeff00112233abcd';
  const lines = table(['TRACE ID', 'NAME'], [[id, 'n'.repeat(80)]], { ids: [0], width: 40 });
  assert.ok(lines[1]!.startsWith(`…${id.slice(-11)}`), lines[1]);
});

test('wrapText breaks after a space, underscore or dash when one is near, else hard', () => {
  assert.equal(wrapText('manager_approval', 10), ['manager_', 'approval']);
  assert.equal(wrapText('abcdefghijkl', 5), ['abcde', 'fghij', 'kl']);
});

test.run();
