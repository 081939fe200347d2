/** Run the load generator in its own process and return its result. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadConfig, LoadResult } from './load.js';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-child.ts');

export function loadFromAnotherProcess(config: LoadConfig): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c));
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited ${code}`))));
  });
}
