/**
 * A stand-in for an OpenAI-compatible provider with a real model's timing, for benchmarks: `POST /chat/completions`
 * answers after `firstTokenMs`, then `tokens` tokens `tokenGapMs` apart, streamed over SSE when the request asks
 * for a stream, one JSON body otherwise. Every answer is plain text (no tool calls), so one model call ends a run.
 *
 * Run it as its own process, so its memory and CPU are not counted with the process measured:
 *
 *   node --import tsx bench/lib/slow-openai-server.ts     prints {"port": n} on stdout once listening on 127.0.0.1
 *
 * Environment: BENCH_MODEL_FIRST_TOKEN_MS (default 50), BENCH_MODEL_TOKENS (20), BENCH_MODEL_TOKEN_GAP_MS (5).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ModelTiming {
  firstTokenMs: number;
  tokens: number;
  tokenGapMs: number;
}

/** The timing from the environment, with the defaults above. */
export function timingFromEnv(env: NodeJS.ProcessEnv = process.env): ModelTiming {
  const read = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of 0 or more (got '${env[name]}')`);
    return value;
  };
  return { firstTokenMs: read('BENCH_MODEL_FIRST_TOKEN_MS', 50), tokens: read('BENCH_MODEL_TOKENS', 20), tokenGapMs: read('BENCH_MODEL_TOKEN_GAP_MS', 5) };
}

/** Serve the fake provider on 127.0.0.1 (port 0: any free one). */
export function startSlowOpenAI(timing: ModelTiming, port = 0): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      let stream = false;
      try {
        stream = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean }).stream === true;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON"}}');
        return;
      }
      void (stream ? answerStream(res, timing) : answerJson(res, timing)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const usage = (tokens: number) => ({ prompt_tokens: 30, completion_tokens: tokens, total_tokens: 30 + tokens });

async function answerJson(res: http.ServerResponse, timing: ModelTiming): Promise<void> {
  await sleep(timing.firstTokenMs + timing.tokens * timing.tokenGapMs);
  const text = Array.from({ length: timing.tokens }, (_, i) => `word${i}`).join(' ');
  const body = {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: usage(timing.tokens),
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function answerStream(res: http.ServerResponse, timing: ModelTiming): Promise<void> {
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  await sleep(timing.firstTokenMs);
  res.write(chunk({ role: 'assistant', content: '' }));
  for (let i = 0; i < timing.tokens; i++) {
    if (i > 0) await sleep(timing.tokenGapMs);
    res.write(chunk({ content: `${i > 0 ? ' ' : ''}word${i}` }));
  }
  res.write(chunk({}, 'stop', { usage: usage(timing.tokens) }));
  res.end('data: [DONE]\n\n');
}

/** Start the server in a child process of its own; `stop()` ends it. */
export async function spawnSlowOpenAI(env: NodeJS.ProcessEnv = process.env): Promise<{ baseUrl: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error('the fake model server exited before listening');
  const { port } = JSON.parse(first.value as string) as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => child.stdin!.end() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startSlowOpenAI(timingFromEnv());
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  // Ends with its parent: stdin closes when the parent goes away.
  process.stdin.resume();
  process.stdin.on('end', () => server.close(() => process.exit(0)));
}
