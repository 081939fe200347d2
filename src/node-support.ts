/**
 * The Node.js lines agentkit runs on. The floor is what its dependencies need: OpenTelemetry's SDK 3.x declares
 * Node 22.15, better-sqlite3 13 Node 22 (on Node 20 its native module crashes the process). Node 20 reached end of
 * life in April 2026. Tested on 22, 24 and 26 (docs/adr/0003-node-lines.md); `engines` in package.json says the same.
 */

/** The oldest Node.js version agentkit starts on. */
export const MIN_NODE_VERSION = '22.15.0';

/**
 * One line saying why this Node.js is too old for agentkit, or null when it is recent enough. `version` is a
 * `process.versions.node` string (`22.15.0`).
 */
export function nodeSupportProblem(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const [minMajor, minMinor, minPatch] = MIN_NODE_VERSION.split('.').map(Number) as [number, number, number];
  const recent = major !== minMajor ? major > minMajor : minor !== minMinor ? minor > minMinor : patch >= minPatch;
  if (recent) return null;
  return `agentkit needs Node.js ${MIN_NODE_VERSION} or later (22, 24 or 26); this is Node.js ${version}`;
}
