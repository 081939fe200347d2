/** The line `agentkit version` prints: `agentkit <version>` and the installed extras. No clipanion, no SDK. */
import { VERSION } from '../src/version.js';
import { installedExtras } from './extras.js';

/** `agentkit 1.2.3 [postgres, mcp-server]`, or `agentkit 1.2.3` when no extra is installed. */
export function versionLine(): string {
  const extras = installedExtras();
  return extras.length > 0 ? `agentkit ${VERSION} [${extras.join(', ')}]` : `agentkit ${VERSION}`;
}
