/** Reading from the terminal: a line, a password without echo, and all of a piped stdin. */
import type { AgentkitContext } from './context.js';

/** One line typed at the terminal (trimmed). */
export function askLine(context: AgentkitContext, question: string): Promise<string> {
  return readLine(context, question, true);
}

/** A password typed at the terminal; nothing is echoed. */
export function askPassword(context: AgentkitContext, question: string): Promise<string> {
  return readLine(context, question, false);
}

function readLine(context: AgentkitContext, question: string, echo: boolean): Promise<string> {
  const stdin = context.stdin as NodeJS.ReadStream;
  context.stderr.write(question);
  return new Promise((resolve, reject) => {
    let text = '';
    const raw = !echo && typeof stdin.setRawMode === 'function';
    if (raw) stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    const done = (value: string | Error) => {
      stdin.off('data', onData);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      if (!echo) context.stderr.write('\n');
      if (value instanceof Error) reject(value);
      else resolve(echo ? value.trim() : value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done(text);
        if (char === '\u0003') return done(new Error('interrupted'));
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** Everything on stdin until it ends. */
export async function readAllStdin(context: AgentkitContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of context.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
