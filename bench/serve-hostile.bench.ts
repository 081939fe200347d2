/**
 * Hostile single requests against `agent serve` at the default 10 MiB cap: the cases the fuzz found blocking the
 * server for seconds before the hardening (a 10 MB body of 600,000 unknown keys, a 3-million-deep array, a bearer
 * header padded with 16,000 spaces), each sent alone while the event loop's longest block is measured. Baseline:
 * `GET /health` in the same run. Target: no request blocks the loop for more than ~50 ms.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { weatherAgent } from '../conformance/fixtures/serving/runners.js';
import { sendRaw } from '../conformance/harness/fuzz.js';
import { listen, warmUp } from '../src/http/validated-app.js';
import { createServeApp } from '../src/serve/app.js';
import { toServeTarget } from '../src/serve/adapters.js';

const app = createServeApp(toServeTarget(weatherAgent({ trace: false }), { traceDb: path.join(tmpdir(), 'agentkit-hostile-unused.db') }), { token: 's3cret' });
const { server, url, port } = await listen(app, 0, '127.0.0.1');
await warmUp(url);

function post(body: string, headers: Record<string, string> = { authorization: 'Bearer s3cret' }): Buffer {
  const head = `POST /run HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${Object.entries(
    headers,
  )
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

const manyKeys = `{${Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(',')}}`.slice(0, 10 * 1024 * 1024 - 1);
const cases: Array<[string, Buffer]> = [
  ['GET /health (baseline)', Buffer.from('GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n')],
  [`600,000 unknown keys (${(manyKeys.length / 2 ** 20).toFixed(1)} MB)`, post(manyKeys)],
  ['3,000,000-deep array (6 MB)', post(`${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}`)],
  ['bearer header with 16,000 spaces', post('{"input":"hi"}', { authorization: `Bearer a${' '.repeat(16_000)}b` })],
  ['9 MB valid input string', post(JSON.stringify({ input: 'a'.repeat(9 * 1024 * 1024) }))],
];
console.log('serve-hostile: one request at a time, default 10 MiB cap; longest event-loop block while it is served');
let baseline = 0;
for (const [label, bytes] of cases) {
  const blocks: number[] = [];
  const times: number[] = [];
  let answer = '';
  for (let round = 0; round < 3; round++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const started = process.hrtime.bigint();
    const response = await sendRaw(port, bytes, 60_000);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    delay.disable();
    blocks.push(delay.max / 1e6);
    answer = `${response?.status} ${response?.body.slice(0, 70) ?? ''}`;
  }
  const block = Math.min(...blocks);
  if (baseline === 0) baseline = Math.min(...times);
  console.log(
    `  ${label}: ${Math.min(...times).toFixed(1)} ms (${(Math.min(...times) / baseline).toFixed(1)}x /health), longest block ${block.toFixed(1)} ms (best of 3); answer ${answer}`,
  );
}
server.closeAllConnections();
server.close();
