/** The CLI skeleton: `agentkit version`, `--help` on every command, usage errors on stderr with exit 2. */
import * as assert from 'uvu/assert';
import { conformance } from '../harness/index.js';
import { buildCli } from '../../cli/build.js';
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
  const json = await t.bin(['version', '--json']);
  assert.equal(JSON.parse(json.stdout), { version: VERSION, extras: ['postgres', 'mcp-server', 'otel-export'] });
});

area.scenario('--help works on every registered command', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  const cli = await buildCli();
  const paths = cli
    .definitions()
    .map((d) => d.path.replace(/^agentkit ?/, '').trim())
    .filter((p) => p && !p.startsWith('-'));
  assert.ok(paths.includes('version'));
  for (const path of paths) {
    const result = await t.cli([...path.split(' '), '--help']);
    assert.is(result.code, 0, `${path} --help: ${result.stderr}`);
    assert.match(result.stdout, new RegExp(`\\$ agentkit ${path}`), `${path} --help prints its usage`);
  }
  const top = await t.cli(['--help']);
  assert.is(top.code, 0);
  assert.match(top.stdout, /^ {2}version {2,}Print the agentkit version/m);
  assert.match(top.stdout, /^ {2}resume {2,}Resume a paused execution/m);
  for (const line of top.stdout.split('\n')) assert.ok(line.length <= 100, `help line over 100 columns: ${line}`);
});

area.scenario('usage errors exit 2 with the message on stderr', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  const unknownCommand = await t.cli(['frobnicate']);
  assert.is(unknownCommand.code, 2);
  assert.is(unknownCommand.stdout, '');
  assert.is(unknownCommand.stderr, "error: unknown command 'frobnicate'; run 'agentkit --help' for the list of commands\n");

  const unknownOption = await t.cli(['version', '--frob']);
  assert.is(unknownOption.code, 2);
  assert.is(unknownOption.stdout, '');
  assert.is(unknownOption.stderr, 'error: unknown option --frob; usage: agentkit version [options]\n');

  const nothing = await t.cli([]);
  assert.is(nothing.code, 2);
  assert.match(nothing.stderr, /agentkit/);

  const binary = await t.bin(['frobnicate']);
  assert.is(binary.code, 2);
  assert.is(binary.stdout, '');
  assert.is(binary.stderr, "error: unknown command 'frobnicate'; run 'agentkit --help' for the list of commands\n");
});

area.run();
