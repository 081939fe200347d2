/**
 * The README's quickstart, as written: its first set-up command serves the example agent (run here as the built binary,
 * without the `npm ci` the clone already had, on a free port), then every `curl` and `npx agentkit` line of its
 * "Try it" block runs in order through a real shell against that server. A change to the README or the example that
 * breaks the walkthrough fails here.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { conformance, startCli } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { bashBlock } from '../harness/readme.js';

const run = promisify(execFile);
const area = conformance('README quickstart');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

area.scenario(
  'the README first command serves the example agent; its curl and CLI lines reach a paused run and resume it',
  {
    rows: ['cli:agent serve', 'cli:list-pending', 'cli:resume', 'cli:traces list', 'route:POST /run', 'route:POST /run/stream'],
    backends: ['sqlite'],
    surfaces: ['cli'],
    timeoutMs: 90_000,
  },
  async (t) => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const [mainJob, testJob] = bashBlock(readme, /^# agentkit/m);
    // Both start on a supported Node.js line: scripts/use-node.sh brings one where the machine's is older.
    assert.match(testJob!, /^\. scripts\/use-node\.sh && npm ci && npm test\b/, 'the second set-up command installs and runs the tests');
    const serve = /^\. scripts\/use-node\.sh && npm ci && npm run build && npx agentkit (agent serve .*?)\s*(#.*)?$/.exec(mainJob!);
    assert.ok(serve, `the first set-up command installs, builds and serves an agent: ${mainJob}`);
    // The Quickstart's own first block serves the same agent, for a reader who installed already.
    const [serveLine] = bashBlock(readme, /^## Quickstart/m, 0);
    assert.match(serveLine!, new RegExp(`^npx agentkit ${serve![1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`));
    const argv = serve![1]!.split(/\s+/).filter((arg, i, all) => arg !== '--port' && all[i - 1] !== '--port');
    const env = { ...t.env, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } as Record<string, string | undefined>;
    const server = startCli([...argv, '--port', '0'], { cwd: root, env });
    t.defer(() => server.kill());
    const [, url] = await server.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/);
    const base = url!.replace('0.0.0.0', '127.0.0.1');

    const lines = bashBlock(readme, /^## Quickstart/m, 1);
    assert.ok(lines.length >= 5, `the quickstart block shows curl and CLI lines: ${lines.join(' | ')}`);
    let executionId = '';
    const outputs: string[] = [];
    for (const line of lines) {
      assert.match(line, /^(curl|npx agentkit|id=\$\(sed) /, `every quickstart line is a curl or agentkit command, or keeps the id: ${line}`);
      const command = line
        .replace(/https?:\/\/(localhost|127\.0\.0\.1):8000/g, base)
        .replace(/(^|\s)(examples|conformance)\//g, `$1${root}/$2/`)
        .replace(/^npx agentkit /, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `);
      // Each line in its own shell (in the scenario's directory: stream.txt is written there), so what the
      // `id=$(...)` line keeps is handed on as the variable it sets.
      const { stdout, stderr } = await run('/bin/sh', ['-c', `${command}\nprintf '\\nid=%s\\n' "$id"`], {
        cwd: t.cwd,
        env: { ...process.env, ...env, id: executionId } as NodeJS.ProcessEnv,
      });
      const kept = /\nid=(.*)\n$/.exec(stdout)?.[1];
      const output = `${stdout.replace(/\nid=.*\n$/, '')}${stderr}`;
      outputs.push(output);
      const paused =
        /"type":"paused"[^\n]*"execution_id":"([0-9a-f-]{36})"/.exec(output) ?? /"status":"paused"[^\n]*"execution_id":"([0-9a-f-]{36})"/.exec(output);
      if (paused && !executionId) executionId = paused[1]!;
      if (kept && kept !== executionId) assert.unreachable(`the README's $id (${kept}) is not the paused run's (${executionId})`);
    }
    const all = outputs.join('\n');
    assert.ok(executionId, `a quickstart line paused a run:\n${all}`);
    assert.match(all, /"status":"completed"/, 'a /run completed');
    assert.match(all, /event: paused\ndata: \{"type":"paused"[^\n]*\n\nevent: done\ndata: \{"type":"done"/, 'the stream sends paused, then done');
    // list-pending shows the paused run with its whole execution id (the handle `resume` takes); the table fits 100
    // columns, so the reason may be cut (`--json` has every field whole).
    assert.match(all, new RegExp(`${executionId}  [^\\n]*refund_`), 'list-pending shows the paused run');
    assert.match(all, /status: completed\n/, 'resume completed the run');
    assert.match(all, /approved by alice/, 'the resumed refund saw the approval');
    assert.match(all, /agent\.support/, 'traces list shows the runs');
    assert.match(all, /tool\.refund \(decision: approved by \S+ \(cli\) at \S+\)/, 'replay show marks where the decision was applied');
  },
);

area.run();
