/**
 * Secrets never echoed: a provider that quotes the API key back in its error body (as real providers do for a
 * wrong key) must not get the key into the HTTP error detail, the server's log, the checkpoint rows or the spans,
 * whatever the key's length or shape. The key here is short and not `sk-`-shaped, so only the redactor (which knows
 * every registered secret value) can catch it.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { conformance, startFakeProvider, type ScenarioContext } from '../harness/index.js';
import { checkpointerFor } from '../harness/checkpointers.js';
import { Agent } from '../../src/agent/index.js';
import { OpenAICompatibleModel } from '../../src/llm/index.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { startAgentServer } from '../../src/serve/server.js';
import { flushTraces } from '../../src/tracing/index.js';

const area = conformance('secrets never echoed');

/** Not provider-shaped: 13 characters with punctuation, so no pattern-based masking could know it. */
const KEY = 'Zq9/odd+k3y=!';
const TOKEN = 'serve-token-7Hq';

async function everyCheckpointRow(t: ScenarioContext): Promise<string> {
  if (t.backend.kind === 'sqlite') {
    const db = new Database(t.backend.dbPath, { readonly: true });
    try {
      return JSON.stringify(db.prepare('SELECT * FROM checkpoints').all()) + JSON.stringify(db.prepare('SELECT * FROM pending_interrupts').all());
    } finally {
      db.close();
    }
  }
  if (t.backend.kind !== 'postgres') throw new Error('a storage backend is needed');
  const client = new pg.Client({ connectionString: t.backend.url });
  await client.connect();
  try {
    const rows = await client.query(`SELECT row_to_json(c)::text AS row FROM "${t.backend.schema}".checkpoints c`);
    return rows.rows.map((row: { row: string }) => row.row).join('\n');
  } finally {
    await client.end();
  }
}

area.scenario(
  'a provider quoting the key: masked in the 500 detail, the log, the checkpoints and the spans',
  { surfaces: ['http'], timeoutMs: 30_000 },
  async (t) => {
    const provider = await startFakeProvider(() => ({
      status: 401,
      json: { error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid/keys.`, code: 'invalid_api_key' } },
    }));
    t.defer(() => provider.close());
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const traceDb = path.join(t.cwd, 'traces.db');
    const agent = new Agent({
      name: 'echo',
      systemPrompt: 'Answer.',
      llm: new OpenAICompatibleModel({ model: 'gpt-4o-mini', apiKey: KEY, baseUrl: `${provider.url}/v1`, maxRetries: 0 }),
      checkpointer,
      traceDb,
    });
    const log: string[] = [];
    const server = await startAgentServer(toServeTarget(agent, { traceDb }), { host: '127.0.0.1', port: 0, token: TOKEN, log: (line) => log.push(line) });
    t.defer(() => server.close());

    const response = await fetch(`${server.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ input: `please use ${TOKEN}` }),
    });
    const text = await response.text();
    assert.ok(response.status >= 500, `${response.status} ${text}`);
    assert.ok(provider.requests.length >= 1, 'the provider was called with the key');
    assert.is(provider.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    assert.not.ok(text.includes(KEY), `HTTP body: ${text}`);
    assert.match(text, /Incorrect API key provided: \[REDACTED\]/);

    await flushTraces();
    const logged = log.join('\n');
    assert.ok(logged.includes('agentkit serve:'), `the failure is logged: ${logged}`);
    assert.not.ok(logged.includes(KEY), `log: ${logged}`);

    const rows = await everyCheckpointRow(t);
    assert.ok(rows.includes('REDACTED'), `the failed run's error is in its terminal row: ${rows.slice(0, 500)}`);
    assert.not.ok(rows.includes(KEY), 'no checkpoint row holds the key');
    assert.not.ok(rows.includes(TOKEN), 'no checkpoint row holds the serve token (it was in the input)');

    const db = new Database(traceDb, { readonly: true });
    const spans = JSON.stringify(db.prepare('SELECT * FROM spans').all());
    db.close();
    assert.ok(spans.length > 10 && spans.includes('REDACTED'), 'spans were written, with the masked text');
    assert.not.ok(spans.includes(KEY), 'no span holds the key');
    assert.not.ok(spans.includes(TOKEN), 'no span holds the serve token');
  },
);

area.run();
