import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
import { EXTRAS, installedExtras } from './extras.js';

const test = suite('cli extras');

test('an extra is listed only when its module resolves to an installed file', () => {
  const listed = installedExtras([
    { name: 'present', module: 'node:path', enables: 'x' },
    { name: 'absent', module: 'agentkit-no-such-package-xyz', enables: 'y' },
  ]);
  assert.equal(listed, ['present']);
});

test('the declared extras are postgres, mcp-server and otel-export, each installed in this checkout', () => {
  assert.equal(
    EXTRAS.map((e) => e.name),
    ['postgres', 'mcp-server', 'otel-export'],
  );
  assert.equal(installedExtras(), ['postgres', 'mcp-server', 'otel-export']);
});

test.run();
