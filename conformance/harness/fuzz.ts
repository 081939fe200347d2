/**
 * A seeded generator of hostile HTTP requests for the served surfaces, and a raw-socket sender that puts exactly
 * those bytes on the wire (header injection and request smuggling need bytes no HTTP client will write). Same seed,
 * same requests: a failure names its seed and index and replays.
 */
import net from 'node:net';
import { gzipSync } from 'node:zlib';

import { prng } from '../../src/prng.js';

export { prng };

export interface FuzzCase {
  /** Which generator made it, for the report. */
  kind: string;
  /** The whole request as bytes. */
  bytes: Buffer;
  /** The method, to know whether the answer has a body. */
  method: string;
}

export interface FuzzTarget {
  /** `METHOD /path` of each route, e.g. `POST /run`. */
  routes: readonly string[];
  /** A valid JSON body for the POST routes. */
  validBody: string;
  /** Headers every request carries (credentials). */
  headers: Record<string, string>;
  /** The server's body cap. */
  maxBodyBytes: number;
}

function request(method: string, target: string, headers: Record<string, string>, body?: Buffer | string, raw = false): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const all: Record<string, string> = { host: '127.0.0.1', connection: 'close', ...headers };
  if (!raw && body !== undefined && !Object.keys(all).some((h) => h.toLowerCase() === 'transfer-encoding' || h.toLowerCase() === 'content-length')) {
    all['content-length'] = String(payload.length);
  }
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

function chunked(parts: Buffer[]): Buffer {
  return Buffer.concat([...parts.flatMap((p) => [Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]), Buffer.from('0\r\n\r\n')]);
}

function randomString(random: () => number, length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-'): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** `count` cases from `seed` against `target`. */
export function* fuzzCases(seed: number, count: number, target: FuzzTarget): Generator<FuzzCase> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const json = { 'content-type': 'application/json', ...target.headers };
  const generators: Array<() => FuzzCase> = [
    () => {
      const body = pick(['{', '{"input":', '{"input":"x"', 'nul', '{"input":"x",}', "{'input':'x'}", '{"input":"\\x"}', '{"input":"\\ud800"}', '', ']']);
      return { kind: 'bad json', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body) };
    },
    () => {
      const value = pick(['5', 'null', 'true', '[]', '{}', '"text"', '1e999', '-0', '{"a":1}', '[1,2]']);
      const body = pick([`{"input":${value}}`, value, `{"input":"ok","extra":${value}}`]);
      return { kind: 'wrong types', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body) };
    },
    () => {
      const keys = Math.floor(random() * 40) + 1;
      const body = `{${Array.from({ length: keys }, (_, i) => `"${i === 0 ? 'input' : randomString(random, 1 + Math.floor(random() * 20))}":"v"`).join(',')}}`;
      return { kind: 'unknown keys', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body) };
    },
    () => {
      const huge = randomString(random, 1000 + Math.floor(random() * 20_000));
      const body = pick([`{"${huge}":"v"}`, `{"input":"${huge}"}`, `{"input":"x","${huge}":1}`]);
      return { kind: 'huge keys', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body) };
    },
    () => {
      const keys = 10_001 + Math.floor(random() * 2000);
      const body = `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',')}}`;
      return {
        kind: 'many keys',
        method: 'POST',
        bytes: request('POST', pick(routes('POST')), json, body.length > target.maxBodyBytes ? body.slice(0, target.maxBodyBytes - 1) : body),
      };
    },
    () => {
      const depth = pick([63, 65, 100, 1000, 20_000]);
      const open = pick(['[', '{"a":']);
      const close = open === '[' ? ']' : '}';
      const body = `{"input":${open.repeat(depth)}1${close.repeat(depth)}}`;
      return { kind: 'deep nesting', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body.slice(0, target.maxBodyBytes)) };
    },
    () => {
      const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xed, 0xa0, 0x80]);
      const body = Buffer.concat([Buffer.from('{"input":"'), bad.subarray(0, 1 + Math.floor(random() * bad.length)), Buffer.from('"}')]);
      return { kind: 'invalid utf-8', method: 'POST', bytes: request('POST', pick(routes('POST')), json, body) };
    },
    () => {
      // Declared over the cap: the server must answer 413 without waiting for (or asking for) the body.
      const headers = {
        ...json,
        'content-length': String(target.maxBodyBytes + 1 + Math.floor(random() * 1e9)),
        ...(random() < 0.5 ? { expect: '100-continue' } : {}),
      };
      return { kind: 'over-cap declared', method: 'POST', bytes: request('POST', pick(routes('POST')), headers, Buffer.from('{"input":"'), true) };
    },
    () => {
      const part = Buffer.alloc(Math.ceil(target.maxBodyBytes / 3), 0x61);
      const body = chunked([Buffer.from('{"input":"'), part, part, part, part, Buffer.from('"}')]);
      return {
        kind: 'over-cap chunked',
        method: 'POST',
        bytes: request('POST', pick(routes('POST')), { ...json, 'transfer-encoding': 'chunked' }, body, true),
      };
    },
    () => {
      const inner = random() < 0.5 ? Buffer.from(target.validBody) : Buffer.from(`{"input":"${'a'.repeat(target.maxBodyBytes * 4)}"}`);
      const gz = gzipSync(inner);
      return {
        kind: 'gzip',
        method: 'POST',
        bytes: request('POST', pick(routes('POST')), { ...json, 'content-encoding': pick(['gzip', 'deflate', 'br', 'x-unknown']) }, gz),
      };
    },
    () => {
      const method = pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'HEAD', 'CONNECT', 'FOO', 'get', 'P OST', 'PROPFIND']);
      const [, path] = pick(target.routes).split(' ');
      return { kind: 'odd method', method, bytes: request(method, path!, json, method === 'HEAD' || method === 'GET' ? undefined : target.validBody) };
    },
    () => {
      const [method, path] = pick(target.routes).split(' ') as [string, string];
      const odd = pick([
        `${path}/`,
        path.toUpperCase(),
        `/${path}`,
        `${path}/..`,
        `${path}%00`,
        `/${randomString(random, 30, 'abc/%.;~!$&()*+,=:@')}`,
        '/'.repeat(200),
        `/${'a'.repeat(8000)}`,
        '*',
        `${path}?${randomString(random, 50, 'a=&%?#')}`,
        'http://127.0.0.1/x',
        `/%${randomString(random, 2, 'GZ%')}`,
      ]);
      return { kind: 'odd path', method, bytes: request(method, odd, json, method === 'GET' ? undefined : target.validBody) };
    },
    () => {
      const [method, path] = pick(routes('POST').map((p) => `POST ${p}`)).split(' ') as [string, string];
      const injected: Record<string, string> = pick<Record<string, string>>([
        { 'x-test': 'a\r\nx-injected: 1' },
        { 'content-length': '5', 'transfer-encoding': 'chunked' },
        { 'content-length': '10, 12' },
        { 'content-length': '-1' },
        { 'transfer-encoding': 'chunked, identity' },
        { 'x-nul': 'a\u0000b' },
        { authorization: `Bearer a${' '.repeat(8000)}b` },
        { 'content-type': 'application/json; charset=utf-7' },
        { 'content-type': '' },
        { 'x-long': 'v'.repeat(20_000) },
        { 'content-type': 'text/plain' },
      ]);
      const headers: Record<string, string> = { ...json, ...injected };
      return {
        kind: 'header injection',
        method,
        bytes: request(method, path, headers, target.validBody, 'content-length' in injected || 'transfer-encoding' in injected),
      };
    },
    () => ({ kind: 'valid', method: 'POST', bytes: request('POST', pick(routes('POST')), json, target.validBody) }),
  ];
  function routes(method: string): string[] {
    const found = target.routes.filter((r) => r.startsWith(`${method} `)).map((r) => r.slice(method.length + 1));
    return found.length ? found : ['/'];
  }
  for (let i = 0; i < count; i++) yield pick(generators)();
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Write `bytes`, read until the server closes (or `timeoutMs`), parse the first response. */
export function sendRaw(port: number, bytes: Buffer, timeoutMs = 10_000): Promise<RawAnswer | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    // No half-close: a server may treat a client FIN as a hang-up (Node does); `connection: close` ends the exchange.
    socket.write(bytes);
  });
}

function parseResponse(data: Buffer): RawAnswer | null {
  let text = data.toString('latin1');
  // Skip interim 1xx answers (100 Continue).
  while (/^HTTP\/1\.1 1\d\d /.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    for (;;) {
      const lineEnd = body.indexOf('\r\n');
      const size = parseInt(body.slice(0, lineEnd), 16);
      if (!size) break;
      out += body.slice(lineEnd + 2, lineEnd + 2 + size);
      body = body.slice(lineEnd + 2 + size + 2);
    }
    body = out;
  } else if (headers['content-length']) {
    body = body.slice(0, Number(headers['content-length']));
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') };
}
