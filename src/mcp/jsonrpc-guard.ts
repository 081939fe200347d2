/**
 * JSON-RPC 2.0 error answers for lines the MCP SDK's stdio transport would drop without a word: a line that is not
 * JSON gets -32700 (parse error), JSON that is not a JSON-RPC 2.0 message gets -32600 (invalid request), and a
 * `tools/call` whose params are not `{ name: string, arguments?: object }` gets -32602 (invalid params) with a
 * one-line message instead of a validation dump. Valid lines pass through unchanged, in order.
 */
import { Transform, type TransformCallback, type Writable } from 'node:stream';

type Id = string | number | null;

/** The JSON-RPC error for one parsed line, or null when the line may go on to the server. */
export function checkJsonRpcLine(line: string): { id: Id; code: number; message: string } | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return { id: null, code: -32700, message: `Parse error: ${error instanceof Error ? error.message : 'not JSON'}` };
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return {
      id: null,
      code: -32600,
      message: Array.isArray(message) ? 'Invalid Request: batches are not supported' : 'Invalid Request: a message must be a JSON object',
    };
  }
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
  const id: Id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  if (m.jsonrpc !== '2.0') return { id, code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' };
  if (m.id !== undefined && m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') {
    return { id: null, code: -32600, message: 'Invalid Request: "id" must be a string, a number or null' };
  }
  if (m.method === undefined) {
    // A response to a request of ours (the server sends few); it needs a result or an error.
    return 'result' in m || 'error' in m ? null : { id, code: -32600, message: 'Invalid Request: no "method"' };
  }
  if (typeof m.method !== 'string') return { id, code: -32600, message: 'Invalid Request: "method" must be a string' };
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) {
    return { id, code: -32602, message: 'Invalid params: "params" must be an object or an array' };
  }
  if (m.method === 'tools/call') {
    const params = m.params as { name?: unknown; arguments?: unknown } | undefined;
    if (!params || typeof params.name !== 'string')
      return { id, code: -32602, message: 'Invalid params: tools/call needs "params.name" (the tool name, a string)' };
    if (params.arguments !== undefined && (typeof params.arguments !== 'object' || params.arguments === null || Array.isArray(params.arguments))) {
      return { id, code: -32602, message: 'Invalid params: "params.arguments" must be an object' };
    }
  }
  return null;
}

/**
 * A stream to put between stdin and the SDK's transport: passes valid lines on, answers the others on `out`.
 * Notifications (no id) that are invalid are answered too when the line could not even be read (id null).
 */
export function jsonRpcGuard(out: Writable): Transform {
  let pending = '';
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline).replace(/\r$/, '');
        pending = pending.slice(newline + 1);
        if (line.trim() === '') continue;
        const problem = checkJsonRpcLine(line);
        if (problem === null) this.push(`${line}\n`);
        else out.write(`${JSON.stringify({ jsonrpc: '2.0', id: problem.id, error: { code: problem.code, message: problem.message } })}\n`);
      }
      done();
    },
    flush(done: TransformCallback) {
      if (pending.trim() !== '') {
        const problem = checkJsonRpcLine(pending);
        if (problem === null) this.push(`${pending}\n`);
        else out.write(`${JSON.stringify({ jsonrpc: '2.0', id: problem.id, error: { code: problem.code, message: problem.message } })}\n`);
      }
      done();
    },
  });
}
