import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
import { table } from './table.js';

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

test.run();
