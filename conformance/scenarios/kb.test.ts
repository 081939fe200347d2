/**
 * Knowledge bases through the CLI and the SDK: a folder of Markdown, text and PDF ingested offline, keyword search
 * with no key, per-file failures that do not stop the batch, re-adding changed and unchanged files, delete and clear,
 * an agent answering through `kb.asTool()`, and a real embedder over a local server speaking the OpenAI embeddings
 * protocol. Bases are files of their own (not the checkpoint backend), so these run once.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { conformance, type ScenarioContext, runTsFile } from '../harness/index.js';
import { makePdf } from '../fixtures/kb/make-pdf.js';
import { Agent, ConfigError, KnowledgeBase, NotFoundError, OpenAIEmbedder, RETRIEVAL_ATTR, TraceStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const area = conformance('knowledge bases');

const REFUNDS = [
  '# Refunds',
  'Refunds are possible within 30 days of delivery.',
  '',
  '## Gift cards',
  'Gift cards cannot be refunded or exchanged for cash.',
  '',
].join('\n');
const SHIPPING = 'Shipping takes two business days with express delivery.\n\nStandard delivery takes five business days.\n';
const WARRANTY = ['Warranty terms', 'The warranty covers manufacturing defects for two years.'];

/** docs/ with a Markdown file, a text file in a subfolder, a PDF, an image (skipped) and a hidden folder (ignored). */
async function writeDocs(t: ScenarioContext): Promise<string> {
  const docs = path.join(t.cwd, 'docs');
  await mkdir(path.join(docs, 'sub'), { recursive: true });
  await mkdir(path.join(docs, '.git'), { recursive: true });
  await writeFile(path.join(docs, 'refunds.md'), REFUNDS);
  await writeFile(path.join(docs, 'sub', 'shipping.txt'), SHIPPING);
  await writeFile(path.join(docs, 'warranty.pdf'), makePdf(WARRANTY));
  await writeFile(path.join(docs, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(path.join(docs, '.git', 'notes.md'), 'hidden gift cards');
  return docs;
}

const offline = { OPENAI_API_KEY: '', AGENTKIT_KB_EMBEDDING_URL: '', AGENTKIT_KB_EMBEDDING_MODEL: '' };

area.scenario(
  'kb add, list, status, search, delete, clear from the CLI, offline, with per-file failures reported',
  { rows: ['cli:kb add', 'cli:kb list', 'cli:kb status', 'cli:kb delete', 'cli:kb clear'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const root = path.join(path.dirname(t.env.AGENTKIT_LOCAL_DB!), 'kb');
    assert.equal(await t.cli(['kb', 'list'], { env: offline }), { code: 0, stdout: `No knowledge bases in ${root}.\n`, stderr: '' });
    await writeDocs(t);
    await writeFile(path.join(t.cwd, 'broken.pdf'), '%PDF-1.4\nthis is not a pdf');
    await writeFile(path.join(t.cwd, 'notes.docx'), 'binary');

    const added = await t.cli(['kb', 'add', 'docs', 'broken.pdf', 'notes.docx', 'missing.md', '--name', 'docs'], { env: offline });
    assert.is(added.code, 1, 'a failed file makes the command fail at the end');
    assert.equal(added.stderr.split('\n').filter(Boolean), [
      'error: missing.md: no such file or directory',
      'error: broken.pdf: not a readable PDF (Invalid PDF structure.)',
      "error: notes.docx: unsupported file type '.docx' (supported: .txt, .md, .markdown, .pdf)",
    ]);
    assert.match(added.stdout, /^docs: 3 added, 0 updated, 0 unchanged, 3 failed, 1 skipped \(unsupported type\); 5 chunks written in \d+\.\ds\n$/);

    const again = await t.cli(['kb', 'add', 'docs', '--name', 'docs', '--json'], { env: offline });
    assert.is(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout) as {
      unchanged: number;
      added: number;
      chunks: number;
      files: Array<{ source: string; status: string; chunks: number }>;
    };
    assert.equal([report.added, report.unchanged, report.chunks], [0, 3, 0], 'unchanged files are skipped');
    assert.equal(
      report.files.map((f) => [path.relative(t.cwd, f.source), f.status, f.chunks]),
      [
        ['docs/refunds.md', 'unchanged', 2],
        ['docs/sub/shipping.txt', 'unchanged', 1],
        ['docs/warranty.pdf', 'unchanged', 2],
      ],
    );

    const listed = await t.cli(['kb', 'list'], { env: offline });
    assert.match(listed.stdout, new RegExp(`^NAME  DOCUMENTS  CHUNKS +SIZE  PATH\\ndocs +3 +5 +[\\d.]+ KiB  ${root.replace(/[.]/g, '\\.')}/docs\\n$`));
    const status = await t.cli(['kb', 'status', '--name', 'docs'], { env: offline });
    assert.is(status.code, 0);
    assert.match(
      status.stdout,
      /^KB: +docs\nPath: .+\nDocuments: 3\nChunks: +5\nSize: +[\d.]+ KiB\nSearch: +keyword \(default\), vector, hybrid\nEmbedder: +hashing fnv1a-words-bigrams \(256 dims\)\nChunking: +1000 characters, 150 overlap\n$/,
    );
    const statusJson = JSON.parse((await t.cli(['kb', 'status', '--name', 'docs', '--json'], { env: offline })).stdout) as {
      documents: number;
      chunks: number;
      embedder: { kind: string };
    };
    assert.equal([statusJson.documents, statusJson.chunks, statusJson.embedder.kind], [3, 5, 'hashing']);

    const search = await t.cli(['kb', 'search', 'can I refund a gift card', '--name', 'docs', '--top-k', '1'], { env: offline });
    assert.match(
      search.stdout,
      /^1\. \[[\d.]+\] docs\/refunds\.md > Refunds > Gift cards\n {3}## Gift cards Gift cards cannot be refunded or exchanged for cash\.\n$/,
    );
    const pdfHit = JSON.parse((await t.cli(['kb', 'search', 'manufacturing defects', '--name', 'docs', '--json'], { env: offline })).stdout) as {
      items: Array<{ source: string; page: number; content: string }>;
    };
    assert.equal([path.basename(pdfHit.items[0]!.source), pdfHit.items[0]!.page, pdfHit.items[0]!.content], ['warranty.pdf', 2, WARRANTY[1]]);

    // A changed file replaces its chunks.
    await writeFile(path.join(t.cwd, 'docs', 'sub', 'shipping.txt'), 'Shipping is free above 50 euros.\n');
    const changed = await t.cli(['kb', 'add', 'docs/sub/shipping.txt', '--name', 'docs'], { env: offline });
    assert.match(changed.stdout, /^docs: 0 added, 1 updated, 0 unchanged, 0 failed; 1 chunks written/);
    assert.is((await t.cli(['kb', 'search', 'express', '--name', 'docs'], { env: offline })).stdout, 'No results.\n', 'old chunks are gone');
    assert.match(
      (await t.cli(['kb', 'search', 'free shipping', '--name', 'docs'], { env: offline })).stdout,
      /shipping\.txt\n {3}Shipping is free above 50 euros\./,
    );

    assert.equal(await t.cli(['kb', 'delete', 'docs/refunds.md', '--name', 'docs'], { env: offline }), {
      code: 0,
      stdout: 'docs: removed 1 document, 2 chunks\n',
      stderr: '',
    });
    assert.is((await t.cli(['kb', 'search', 'gift cards', '--name', 'docs'], { env: offline })).stdout, 'No results.\n');
    assert.equal(await t.cli(['kb', 'delete', 'docs/refunds.md', '--name', 'docs'], { env: offline }), {
      code: 1,
      stdout: '',
      stderr: "error: docs/refunds.md is not in knowledge base 'docs'\n",
    });
    assert.equal(await t.cli(['kb', 'clear', '--name', 'docs'], { env: offline }), { code: 0, stdout: 'docs: cleared 2 documents, 3 chunks\n', stderr: '' });
    assert.match((await t.cli(['kb', 'status', '--name', 'docs'], { env: offline })).stdout, /Documents: 0\nChunks: +0\n/);
    assert.equal(await t.cli(['kb', 'status', '--name', 'nope'], { env: offline }), {
      code: 1,
      stdout: '',
      stderr: `error: knowledge base 'nope' not found in ${root} (bases: docs)\n`,
    });
    assert.equal(await t.cli(['kb', 'clear', '--name', 'nope'], { env: offline }), {
      code: 1,
      stdout: '',
      stderr: `error: knowledge base 'nope' not found in ${root} (bases: docs)\n`,
    });
    assert.not.ok(existsSync(path.join(root, 'nope')), 'reading an unknown base does not create it');
    assert.is((await t.cli(['kb', 'search', 'x', '--name', 'docs', '--mode', 'fuzzy'], { env: offline })).code, 2);

    const other = await t.cli(['kb', 'add', 'docs/refunds.md', '--name', 'faq', '--path', 'elsewhere'], { env: offline });
    assert.is(other.code, 0, other.stderr);
    assert.match((await t.cli(['kb', 'list', '--path', 'elsewhere'], { env: offline })).stdout, /^faq +1 +2 /m);
  },
);

area.scenario(
  'an agent answers through kb.asTool(); the retrieval span records the query and the chunk ids',
  { rows: ['cli:kb add'], backends: ['sqlite'], surfaces: ['sdk'], timeoutMs: 30_000 },
  async (t) => {
    const docs = await writeDocs(t);
    const kb = new KnowledgeBase('docs', { cwd: t.cwd, env: { ...t.env, ...offline } });
    t.defer(() => kb.close());
    const progress: string[] = [];
    const report = await kb.add(docs, { onProgress: (p) => progress.push(`${p.filesDone}/${p.filesTotal} ${p.chunks} ${path.basename(p.current)}`) });
    assert.equal([report.added, report.failed, report.skipped, report.chunks], [3, 0, 1, 5]);
    assert.equal(progress, ['1/3 2 refunds.md', '2/3 3 shipping.txt', '3/3 5 warranty.pdf'], 'progress after each file: files, chunks so far');
    const hits = await kb.search('gift card refund', { topK: 2 });
    assert.is(hits[0]!.heading, 'Refunds > Gift cards');
    assert.is(hits[0]!.source, path.join(docs, 'refunds.md'));
    assert.ok(hits[0]!.score > hits[1]!.score);
    assert.is(REFUNDS.slice(hits[0]!.start_char, hits[0]!.end_char), hits[0]!.content, 'offsets point into the source text');
    for (const mode of ['vector', 'hybrid'] as const) {
      const found = await kb.search('gift cards refunded', { topK: 1, mode });
      assert.is(found[0]!.heading, 'Refunds > Gift cards', `${mode} search works offline on the local embedder`);
    }

    const retrieval = kb.asTool({ registry: false });
    assert.is(retrieval.name, 'search_docs');
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'search_docs', arguments: { query: 'gift card refund' } }] },
      { text: 'Gift cards cannot be refunded.' },
    ]);
    const agent = new Agent({ name: 'helpdesk', llm, tools: [retrieval], traceDb: t.env.AGENTKIT_LOCAL_DB! });
    const result = await agent.run('Can I get my money back for a gift card?');
    assert.is(result.output, 'Gift cards cannot be refunded.');
    const toolMessage = llm.received[1]!.find((m) => m.role === 'tool')!;
    const passages = JSON.parse(String(toolMessage.content)) as Array<{ id: number; source: string; heading: string; content: string }>;
    assert.equal(
      [passages[0]!.source, passages[0]!.heading, passages[0]!.content],
      ['refunds.md', 'Refunds > Gift cards', '## Gift cards\nGift cards cannot be refunded or exchanged for cash.'],
    );
    const trace = await new TraceStore({ dbPath: t.env.AGENTKIT_LOCAL_DB! }).getTrace(result.trace_id!);
    const span = trace.spans.find((s) => s.name === 'retrieval.docs')!;
    assert.ok(span, trace.spans.map((s) => s.name).join(', '));
    assert.is(span.attributes[RETRIEVAL_ATTR.query], 'gift card refund');
    assert.equal(
      JSON.parse(span.attributes[RETRIEVAL_ATTR.docIds] as string),
      passages.map((p) => p.id),
    );
    assert.is(span.attributes[RETRIEVAL_ATTR.resultCount], passages.length);
    const toolSpan = trace.spans.find((s) => s.name === 'tool.search_docs')!;
    assert.is(span.parent_span_id, toolSpan.span_id, 'retrieval runs inside the tool call');
    assert.is(toolSpan.attributes['tool.origin'], 'kb');
  },
);

/** A local server speaking the OpenAI embeddings protocol: 4 "topics" (refund, shipping, warranty, other). */
async function startEmbeddingServer(t: ScenarioContext) {
  const requests: Array<{ auth: string | undefined; body: { model: string; input: string[] } }> = [];
  const topics = [/refund|money back|gift/i, /ship|deliver/i, /warrant|defect/i];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { model: string; input: string[] };
    requests.push({ auth: req.headers.authorization, body });
    if (req.url !== '/v1/embeddings') {
      res.writeHead(404).end();
      return;
    }
    const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: [...topics.map((re) => (re.test(text) ? 1 : 0)), 0.1] }));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

area.scenario(
  'a real embedder: an OpenAI-compatible endpoint from the environment, recorded with the base, never its key',
  { rows: ['cli:kb add', 'cli:kb status'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 30_000 },
  async (t) => {
    const server = await startEmbeddingServer(t);
    await writeDocs(t);
    const env = { AGENTKIT_KB_EMBEDDING_URL: server.url, AGENTKIT_KB_EMBEDDING_MODEL: 'topic-embed', AGENTKIT_KB_EMBEDDING_API_KEY: 'sk-embed-secret-123' };
    const added = await t.cli(['kb', 'add', 'docs', '--name', 'semantic'], { env });
    assert.is(added.code, 0, added.stderr);
    assert.ok(server.requests.length >= 1);
    assert.equal([server.requests[0]!.auth, server.requests[0]!.body.model], ['Bearer sk-embed-secret-123', 'topic-embed']);

    // Later commands need no endpoint variables: the base recorded its embedder (the key still comes from the env).
    const status = await t.cli(['kb', 'status', '--name', 'semantic', '--json'], { env: { AGENTKIT_KB_EMBEDDING_API_KEY: 'sk-embed-secret-123' } });
    const parsed = JSON.parse(status.stdout) as { default_mode: string; embedder: Record<string, unknown> };
    assert.equal(parsed.embedder, { kind: 'openai', model: 'topic-embed', dimensions: 4, base_url: server.url });
    assert.is(parsed.default_mode, 'hybrid');
    assert.not.match(status.stdout, /sk-embed/);
    const semantic = await t.cli(['kb', 'search', 'money back', '--name', 'semantic', '--mode', 'vector', '--top-k', '1', '--json'], {
      env: { AGENTKIT_KB_EMBEDDING_API_KEY: 'sk-embed-secret-123' },
    });
    const hit = (JSON.parse(semantic.stdout) as { items: Array<{ source: string }> }).items[0]!;
    assert.is(path.basename(hit.source), 'refunds.md', "the endpoint's vectors find a chunk sharing no word with the query");
    assert.is(server.requests.at(-1)!.body.input[0], 'money back');

    const kbDir = path.join(path.dirname(t.env.AGENTKIT_LOCAL_DB!), 'kb', 'semantic');
    const mismatch = (() => {
      try {
        return new KnowledgeBase('semantic', { root: path.dirname(kbDir), embedder: new OpenAIEmbedder({ baseUrl: server.url, model: 'other-model' }) });
      } catch (error) {
        return error;
      }
    })();
    assert.instance(mismatch, ConfigError);
    assert.match(
      (mismatch as Error).message,
      /^knowledge base 'semantic' was built with the openai topic-embed \(4 dims\) at http:\/\/127\.0\.0\.1:\d+\/v1 embedder, not openai other-model/,
    );
    const unknown = (() => {
      try {
        return new KnowledgeBase('absent', { root: path.dirname(kbDir), create: false });
      } catch (error) {
        return error;
      }
    })();
    assert.instance(unknown, NotFoundError);

    const down = await t.cli(['kb', 'add', 'docs/refunds.md', '--name', 'fresh'], {
      env: { AGENTKIT_KB_EMBEDDING_URL: 'http://127.0.0.1:9/v1', AGENTKIT_KB_EMBEDDING_MODEL: 'm' },
    });
    assert.is(down.code, 1);
    assert.match(down.stderr, /^error: docs\/refunds\.md: embeddings: request failed: .* \(POST http:\/\/127\.0\.0\.1:9\/v1\/embeddings, 3 attempts\)\n$/);
  },
);

area.scenario(
  'docs/kb.md: the example helpdesk agent ingests its docs once and answers from them offline',
  { rows: ['cli:kb add'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const runExample = () =>
      runTsFile([path.resolve('examples/kb/helpdesk-agent.ts'), 'Can I refund a gift card?'], { cwd: t.cwd, env: { ...process.env, ...t.env, ...offline } });
    const first = await runExample();
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout, 'ingested: 2 added, 0 unchanged, 3 chunks\nGift cards cannot be refunded or exchanged for cash. (source: refunds.md)\n');
    const second = await runExample();
    assert.is(second.stdout.split('\n')[0], 'ingested: 0 added, 2 unchanged, 0 chunks');
    assert.match(
      (await t.cli(['kb', 'search', 'express delivery', '--name', 'helpdesk', '--top-k', '1'], { env: offline })).stdout,
      /examples\/kb\/docs\/shipping\.txt|shipping\.txt/,
    );
  },
);

area.run();
