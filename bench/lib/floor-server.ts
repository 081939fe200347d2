/**
 * The floor a served agent is measured against: the same routes on the same HTTP stack (Express 5, `express.json`
 * with the served agent's body cap), each calling the same OpenAI-compatible model with `fetch`, without agentkit (no
 * validation, tracing, checkpoints). It is what a hand-written endpoint around one model call costs.
 *
 * - `POST /run` `{"input": string}`: one non-streamed chat completion; answers `{"output": text, "status": "completed"}`.
 * - `POST /run/stream`: one streamed chat completion; forwards each delta as `data: {"type":"token","content":...}`,
 *   then `data: {"type":"done"}` (the served agent's event stream, without its other events).
 *
 * Run it as its own process (`spawnFloorServer`, or `node --import tsx bench/lib/floor-server.ts` with
 * BENCH_MODEL_URL set): prints `{"port": n}` on stdout once listening on 127.0.0.1, ends when stdin closes.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express, { type Response } from 'express';

/**
 * The served agent's default body cap (src/serve/app.ts DEFAULT_MAX_BODY_BYTES), written out: importing it would load
 * agentkit into the floor's process and count its memory there.
 */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The request the served agent sends for one turn (system prompt, user input), without tools. */
function chatBody(input: string, stream: boolean): string {
  const messages = [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: input },
  ];
  return JSON.stringify({ model: 'bench', messages, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
}

function fail(res: Response, error: unknown): void {
  if (res.headersSent) res.destroy();
  else res.status(500).json({ detail: error instanceof Error ? error.message : String(error), code: 'internal_error' });
}

export function createFloorApp(modelUrl: string): express.Express {
  const completions = `${modelUrl}/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: 'Bearer bench' };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: MAX_BODY_BYTES, strict: false }));

  app.post('/run', async (req, res) => {
    try {
      const answer = await fetch(completions, { method: 'POST', headers, body: chatBody(String(req.body.input), false) });
      const json = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
      res.json({ output: json.choices[0]!.message.content, status: 'completed' });
    } catch (error) {
      fail(res, error);
    }
  });

  app.post('/run/stream', async (req, res) => {
    try {
      const answer = await fetch(completions, { method: 'POST', headers, body: chatBody(String(req.body.input), true) });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const decoder = new TextDecoder();
      let pending = '';
      const reader = answer.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        pending += decoder.decode(chunk.value, { stream: true });
        let end = pending.indexOf('\n\n');
        while (end >= 0) {
          const event = pending.slice(0, end);
          pending = pending.slice(end + 2);
          end = pending.indexOf('\n\n');
          const data = event.startsWith('data: ') ? event.slice(6) : '';
          if (data === '' || data === '[DONE]') continue;
          const content = (JSON.parse(data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content;
          if (content) res.write(`data: ${JSON.stringify({ type: 'token', content })}\n\n`);
        }
      }
      res.end('data: {"type":"done"}\n\n');
    } catch (error) {
      fail(res, error);
    }
  });
  return app;
}

/** Start the floor in a child process of its own, talking to the model at `modelUrl`; `pid` for CPU and RSS probes. */
export async function spawnFloorServer(modelUrl: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_MODEL_URL: modelUrl },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error('the floor server exited before listening');
  const { port } = JSON.parse(first.value as string) as { port: number };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.stdin!.end() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const modelUrl = process.env.BENCH_MODEL_URL;
  if (!modelUrl) throw new Error('BENCH_MODEL_URL must name the fake model server (bench/lib/slow-openai-server.ts)');
  const server = createFloorApp(modelUrl).listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  server.keepAliveTimeout = 60_000;
  process.stdin.resume();
  process.stdin.on('end', () => server.close(() => process.exit(0)));
}
