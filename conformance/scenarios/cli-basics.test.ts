/** The CLI skeleton: `agentkit version`, `--help` on every command, usage errors on stderr with exit 2. */
import * as assert from 'uvu/assert';
import { conformance } from '../harness/index.js';
import { buildCli } from '../../cli/main.js';
import { VERSION } from '../../src/version.js';

const area = conformance('cli basics');
const versionLine = new RegExp(`^agentkit ${VERSION.replace(/\./g, '\\.')}( \\[[a-z-]+(, [a-z-]+)*\\])?\\n$`);

area.scenario('agentkit version prints agentkit <version> [extras]', { rows: ['cli:version'], backends: 'none', surfaces: ['cli'] }, async (t) => {
  assert.match(VERSION, /^\d+\.\d+\.\d+$/);
  const inProcess = await t.cli(['version']);
  assert.is(inProcess.code, 0);
  assert.match(inProcess.stdout, versionLine);
  assert.is(inProcess.stdout, `agentkit ${VERSION} [postgres, mcp-server, otel-export]\n`);
  assert.is(inProcess.stderr, '');
  const binary = await t.bin(['version']);
  assert.is(binary.code, 0, binary.stderr);
  assert.is(binary.stdout, inProcess.stdout);
});

area.scenario('--help works on every registered command', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  const cli = buildCli();
  const paths = cli.definitions().map((d) => d.path.replace(/^agentkit ?/, '').trim()).filter((p) => p && !p.startsWith('-'));
  assert.ok(paths.includes('version'));
  for (const path of paths) {
    const result = await t.cli([...path.split(' '), '--help']);
    assert.is(result.code, 0, `${path} --help: ${result.stderr}`);
    assert.match(result.stdout, new RegExp(`\\$ agentkit ${path}`), `${path} --help prints its usage`);
  }
  const top = await t.cli(['--help']);
  assert.is(top.code, 0);
  assert.match(top.stdout, /agentkit version/);
});

area.scenario('usage errors exit 2 with the message on stderr', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  const unknownCommand = await t.cli(['frobnicate']);
  assert.is(unknownCommand.code, 2);
  assert.is(unknownCommand.stdout, '');
  assert.match(unknownCommand.stderr, /Command not found/);

  const unknownOption = await t.cli(['version', '--frob']);
  assert.is(unknownOption.code, 2);
  assert.is(unknownOption.stdout, '');
  assert.match(unknownOption.stderr, /--frob/);

  const nothing = await t.cli([]);
  assert.is(nothing.code, 2);
  assert.match(nothing.stderr, /agentkit/);

  const binary = await t.bin(['frobnicate']);
  assert.is(binary.code, 2);
  assert.is(binary.stdout, '');
  assert.match(binary.stderr, /Command not found/);
});

area.run();
