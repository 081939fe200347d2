/**
 * Opening the UI in the user's browser, best effort: only when there is a display to show it on (macOS and Windows
 * always have one; elsewhere `DISPLAY` or `WAYLAND_DISPLAY` must be set). Never waits for the browser and never fails
 * the start: a missing opener is reported in one line.
 */
import { spawn } from 'node:child_process';

/** The command that opens `url` on this platform, or null when there is no display. */
export function openerFor(url: string, platform: NodeJS.Platform, env: Record<string, string | undefined>): string[] | null {
  if (platform === 'darwin') return ['open', url];
  if (platform === 'win32') return ['cmd', '/c', 'start', '""', url];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return ['xdg-open', url];
}

/** Open `url`; returns a line saying what happened, for the log. */
export function openBrowser(url: string, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): Promise<string> {
  const command = openerFor(url, platform, env);
  if (!command) return Promise.resolve('no display: open the URL above in a browser');
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true, env: env as NodeJS.ProcessEnv });
    child.once('error', (error) => resolve(`could not open a browser (${command[0]}: ${error.message}); open the URL above`));
    child.once('spawn', () => {
      child.unref();
      resolve(`opened ${url} in the browser`);
    });
  });
}
