/**
 * Safe retries against a served agent: every attempt of one request sends the same `Idempotency-Key`, so a retry
 * after a dropped connection, a proxy timeout or a killed replica never starts a second run; it gets the first run's
 * outcome, or a 409 while that run is still going (then wait and ask again).
 *
 *   npx agentkit agent serve examples/quickstart-agent.ts:support --host 127.0.0.1 --auth-token s3cret &
 *   AGENT_URL=http://127.0.0.1:8000 AGENTKIT_SERVE_TOKEN=s3cret \
 *     node --conditions=agentkit-source --import tsx examples/serving/retry-with-key.ts 'Please refund order 42.'
 */
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { AgentClient, type RunResponse } from 'agentkit/client';

/** POST /run until it answers, at most `attempts` times, with one key for every attempt. */
export async function runWithRetries(client: AgentClient, input: string, attempts = 5): Promise<RunResponse> {
  const idempotencyKey = randomUUID();
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let result: Awaited<ReturnType<AgentClient['run']>> | null = null;
    try {
      result = await client.run(input, { idempotencyKey });
    } catch (error) {
      // The network failed: the run may have started. Retrying with the same key is safe.
      console.error(`attempt ${attempt}: ${(error as Error).message}; retrying`);
    }
    if (result?.data) return result.data;
    const status = result?.error.status;
    // 409: the first attempt's run is still going; 503: the store is briefly down, or the replica shut down and
    // another continues the run (`run_stopped`). Anything else is final.
    if (result && status !== 409 && status !== 503) throw new Error(`${status} ${result.error.body.code}: ${result.error.body.detail}`);
    await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
  }
  throw new Error(`no answer after ${attempts} attempts`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const client = new AgentClient({ baseUrl: process.env.AGENT_URL ?? 'http://127.0.0.1:8000', token: process.env.AGENTKIT_SERVE_TOKEN });
  // With no agent served there (started as above), it stops with one line instead of a stack trace.
  const answer = await runWithRetries(client, process.argv[2] ?? 'Where is order 42?').catch((error: Error) => {
    console.error(`error: ${error.message} (is an agent served at ${process.env.AGENT_URL ?? 'http://127.0.0.1:8000'}?)`);
    process.exit(1);
  });
  console.log(`${answer.status} ${answer.execution_id}: ${answer.output}`);
  // Later, from anywhere: where that execution stands now (needs the token, or a server started with --expose-status).
  const { data } = await client.getRun(answer.execution_id);
  if (data) console.log(`now ${data.status}; traces ${data.trace_ids.join(', ')}`);
}
