/** The HTTP surface: an Express app on 127.0.0.1:0, warmed up, closed after the test. */
import type { Express } from 'express';
import { listen, warmUp } from '../../src/http/validated-app.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Listen on a free loopback port and load the app's contract before the test's first request. */
export async function startApp(app: Express, options: { warm?: boolean } = {}): Promise<RunningServer> {
  const { server, url } = await listen(app, 0, '127.0.0.1');
  if (options.warm !== false) await warmUp(url);
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
