/**
 * Deny by default on every served surface: each route of each OpenAPI document, spelled every way a router or a
 * proxy might treat as the same (case, trailing and double slashes, percent-encoding, dot segments, absolute form,
 * parameters), sent without credentials and with a wrong one, must answer 401 with the contract body, and no handler
 * may run. Adding a server is one entry of `SERVERS`.
 */
import * as assert from 'uvu/assert';
import { doc as servedAgentDoc } from '../../generated/schemas/served-agent.js';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { rawRequest } from '../harness/raw-http.js';
import { createServeApp } from '../../src/serve/app.js';
import type { ServeTarget } from '../../src/serve/target.js';
import { doc as uiDoc } from '../../generated/schemas/ui.js';
import path from 'node:path';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile } from '../../src/ui/auth-file.js';

const area = conformance('served surfaces: authentication');

interface SurfaceUnderTest {
  name: string;
  doc: object;
  /** `METHOD /path` keys reachable without credentials. */
  open: readonly string[];
  /** A header that is present but wrong. */
  wrongCredentials: Record<string, string>;
  /** The code an unauthenticated request gets. */
  code: string;
  /** Start the server with authentication on; `ran()` counts handler invocations that did work. */
  start(t: ScenarioContext): Promise<{ url: string; ran: () => number }>;
}

async function startServedAgent(t: ScenarioContext): Promise<{ url: string; ran: () => number }> {
  let runs = 0;
  const target: ServeTarget = {
    kind: 'agent',
    name: 'counter',
    run: () => {
      runs++;
      return Promise.resolve({ output: 'ran', latency_ms: 0, tokens_used: 0, trace_id: null, status: 'completed', execution_id: 'e', pending_interrupt: null });
    },
    stream: async function* () {
      runs++;
      yield { type: 'delta' as const, text: 'ran' };
    },
  };
  const server = await t.serve(createServeApp(target, { token: 's3cret-token' }));
  return { url: server.url, ran: () => runs };
}

/** Count every store call a handler makes: none may happen without a session. */
function counting<T extends object>(target: T, count: () => void): T {
  return new Proxy(target, {
    get(object, key) {
      // The target as receiver: getters that read private fields (`#ref`) would throw on the proxy.
      const value = Reflect.get(object, key, object) as unknown;
      if (typeof value !== 'function' || key === 'close') return value;
      return (...args: unknown[]) => {
        count();
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

async function startUi(t: ScenarioContext): Promise<{ url: string; ran: () => number }> {
  let calls = 0;
  const dbPath = path.join(t.cwd, 'local.db');
  const checkpointer = new SQLiteCheckpointer(dbPath);
  t.defer(() => checkpointer.close());
  const traceStore = new TraceStore({ dbPath });
  const app = createUiApp({
    checkpointer: counting(checkpointer, () => calls++),
    traceStore: counting(traceStore, () => calls++),
    auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') },
    runners: [],
  });
  const server = await t.serve(app);
  return { url: server.url, ran: () => calls };
}

/** One line per server: the UI and Platform servers join here when they exist. */
const SERVERS: SurfaceUnderTest[] = [
  {
    name: 'served agent',
    doc: servedAgentDoc,
    open: ['GET /health'],
    wrongCredentials: { authorization: 'Bearer s3cret-tokeN' },
    code: 'unauthorized',
    start: startServedAgent,
  },
  {
    name: 'local UI',
    doc: uiDoc,
    // Login is open (its body is the credential) and status says whether anyone is signed in; the web app's pages
    // are extra routes, outside the document.
    open: ['POST /api/auth/login', 'GET /api/auth/status'],
    wrongCredentials: { cookie: 'agentkit_session=admin.0.forged; agentkit_csrf=x', 'x-csrf-token': 'x' },
    code: 'not_authenticated',
    start: startUi,
  },
];

/** Every (method, concrete path) the document declares; `{param}` segments filled with a plausible value. */
function routesOf(doc: object): Array<{ method: string; path: string; key: string }> {
  const paths = (doc as { paths: Record<string, Record<string, unknown>> }).paths;
  const out: Array<{ method: string; path: string; key: string }> = [];
  for (const [template, item] of Object.entries(paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      if (!item[method]) continue;
      out.push({ method: method.toUpperCase(), path: template.replace(/\{[^}]+\}/g, 'x1'), key: `${method.toUpperCase()} ${template}` });
    }
  }
  return out;
}

/** Spellings of `path` that some router, proxy or decoder could take for the same resource. */
function variants(path: string, base: string): string[] {
  const segments = path.split('/').slice(1);
  const first = segments[0] ?? '';
  const encodedFirst = `%${first.charCodeAt(0).toString(16)}${first.slice(1)}`;
  const rest = segments
    .slice(1)
    .map((segment) => `/${segment}`)
    .join('');
  const capitalised = `/${segments.map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1)).join('/')}`;
  return [
    path,
    path.toUpperCase(),
    capitalised,
    `${path}/`,
    `${path}//`,
    `/${path}`,
    `${path.replace(/\//g, '//')}`,
    `/${encodedFirst}${rest}`,
    `/${encodedFirst.toUpperCase()}${rest}`,
    `/${path.slice(1).replace(/\//g, '%2F')}`,
    path.replace(/\//g, '%2F'),
    `*`,
    `/./${path.slice(1)}`,
    `/x/..${path}`,
    `${path}/.`,
    `/%2e${path}`,
    `/%2E%2E${path}`,
    `${path};x=1`,
    `${path}%00`,
    `${path}%20`,
    `${path}?x=1`,
    `${path}?`,
    `${path}#frag`,
    `${base}${path}`,
    `${base}${path.toUpperCase()}/`,
  ];
}

for (const server of SERVERS) {
  area.scenario(
    `${server.name}: every route in every spelling needs credentials`,
    { rows: ['route:POST /run', 'route:POST /run/stream'], backends: 'none', surfaces: ['http'], timeoutMs: 60_000 },
    async (t) => {
      const { url, ran } = await server.start(t);
      const routes = routesOf(server.doc);
      assert.ok(routes.length > 0, 'the document declares routes');
      let checked = 0;
      for (const route of routes) {
        for (const target of variants(route.path, url)) {
          const wellFormed = target.startsWith('/') || target.startsWith('http') || target === '*';
          // HEAD of a target the parser refuses: the JSON refusal carries a body the HEAD client may not expect.
          for (const method of [route.method, ...(route.method === 'GET' && wellFormed ? ['HEAD'] : []), 'OPTIONS']) {
            const openRoute = server.open.includes(`${method === 'HEAD' ? 'GET' : method} ${routeKeyPath(route.key)}`) && sameResource(target, route.path, url);
            for (const credentials of [{}, server.wrongCredentials]) {
              const body = method === 'GET' || method === 'HEAD' ? undefined : '{"input":"hello"}';
              const response = await rawRequest(url, {
                method,
                target,
                headers: { ...credentials, ...(body ? { 'content-type': 'application/json' } : {}) },
                ...(body ? { body } : {}),
              });
              const label = `${method} ${target} ${Object.keys(credentials).length ? 'with a wrong credential' : 'without credentials'}`;
              checked++;
              if (!wellFormed) {
                // Not an origin-form or absolute-form target: Node's parser refuses it before any routing.
                assert.is(response.status, 400, `${label}: ${response.text}`);
                assert.is((JSON.parse(response.text) as { code: string }).code, 'validation_failed', label);
                continue;
              }
              if (openRoute) {
                // A fragment is not part of a request target; the router ignores it, the validator may 404 it.
                // (A write's test body may be refused by the contract: 400 still shows the route was reached unauthenticated.)
                assert.ok(
                  response.status === 200 ||
                    (method !== 'GET' && method !== 'HEAD' && response.status === 400) ||
                    (target.includes('#') && response.status === 404),
                  `${label}: the open route answers: ${response.status}`,
                );
                continue;
              }
              assert.is(response.status, 401, `${label}: ${response.status} ${response.text}`);
              if (method !== 'HEAD') assert.is((JSON.parse(response.text) as { code: string }).code, server.code, label);
            }
          }
        }
      }
      assert.is(ran(), 0, 'no handler did any work without credentials');
      assert.ok(checked > 200, `${checked} requests`);
    },
  );
}

function routeKeyPath(key: string): string {
  return key.slice(key.indexOf(' ') + 1);
}

/** True for the spellings that are exactly the open route (a query string does not change the resource). */
function sameResource(target: string, path: string, base: string): boolean {
  return [path, `${path}?x=1`, `${path}?`, `${path}#frag`, `${base}${path}`].includes(target);
}

area.run();
