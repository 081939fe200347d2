/**
 * Credential shapes: text that looks like a token of a known kind, masked in every observation copy (spans, OTLP,
 * error messages, log lines, HTTP and MCP error bodies) besides the registered secrets (docs/adr/0010). Never applied
 * to what a run itself reads (model messages, tool results, checkpoints), so a false positive costs the legibility of a
 * trace or a log line, never a run's behaviour.
 *
 * False-positive policy: every shape is a vendor's literal prefix, its alphabet and a minimum length, between word
 * boundaries. Plain words, UUIDs, hex ids, base64 without the JWT structure and short lookalikes (`sk-learn`,
 * `Bearer token`) do not match. A shape is added only for a documented token format.
 */

/** One kind of credential: its pattern source and the literal prefixes a text must contain to possibly hold one. */
interface Shape {
  readonly name: string;
  readonly pattern: string;
  readonly prefixes: readonly string[];
}

export const CREDENTIAL_SHAPES: readonly Shape[] = [
  // An HTTP authorization credential: the scheme word is kept, the credential masked.
  { name: 'authorization', pattern: String.raw`\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}`, prefixes: ['Bearer', 'Basic'] },
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-) and other sk- keys; xAI; Groq.
  { name: 'sk-key', pattern: String.raw`\bsk-[A-Za-z0-9_-]{16,}`, prefixes: ['sk-'] },
  { name: 'xai-key', pattern: String.raw`\bxai-[A-Za-z0-9_-]{16,}`, prefixes: ['xai-'] },
  { name: 'groq-key', pattern: String.raw`\bgsk_[A-Za-z0-9]{16,}`, prefixes: ['gsk_'] },
  // An agentkit Platform API key (`agentkit platform keys create`, docs/adr/0067): `akp_`, 8 hex, `_`, 43 base64url.
  { name: 'agentkit-platform-key', pattern: String.raw`\bakp_[0-9a-f]{8}_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])`, prefixes: ['akp_'] },
  // GitHub: classic tokens (personal, OAuth, user-to-server, server-to-server, refresh) and fine-grained ones.
  { name: 'github-token', pattern: String.raw`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`, prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { name: 'github-pat', pattern: String.raw`\bgithub_pat_[A-Za-z0-9_]{22,255}\b`, prefixes: ['github_pat_'] },
  // Slack: bot, user, app-level, refresh, workspace and legacy tokens.
  { name: 'slack-token', pattern: String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, prefixes: ['xox'] },
  { name: 'slack-app-token', pattern: String.raw`\bxapp-\d-[A-Za-z0-9-]{10,}`, prefixes: ['xapp-'] },
  // AWS access key ids (long-term AKIA, temporary ASIA): exactly 16 uppercase alphanumerics after the prefix.
  { name: 'aws-access-key-id', pattern: String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, prefixes: ['AKIA', 'ASIA'] },
  // A JWT: three base64url segments, header and payload being JSON objects (base64url of `{"` is `eyJ`).
  // A password in a URL's userinfo (RFC 3986 `scheme://user:password@host`): a store URL (`postgres://...`) is the
  // usual one. Only the password is masked, so the user and host still say which server it was.
  { name: 'url-password', pattern: String.raw`(?<=\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*:)[^\s/?#@]+(?=@)`, prefixes: ['://'] },
  { name: 'jwt', pattern: String.raw`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`, prefixes: ['eyJ'] },
];

/** Every literal prefix: a text holding none of them holds no credential shape (the cheap test). */
export const CREDENTIAL_PREFIXES: readonly string[] = CREDENTIAL_SHAPES.flatMap((shape) => shape.prefixes);

const ALL = new RegExp(CREDENTIAL_SHAPES.map((shape) => `(?:${shape.pattern})`).join('|'), 'g');
const ANY_PREFIX = new RegExp(CREDENTIAL_PREFIXES.map((prefix) => prefix.replace(/[-]/g, '\\$&')).join('|'));

/** The text that replaces a masked credential. */
export const CREDENTIAL_MASK = '[REDACTED]';

/** True when `text` contains one of the shapes' prefixes (false means `maskCredentialShapes` returns it unchanged). */
export function mayHoldCredentialShape(text: string): boolean {
  return ANY_PREFIX.test(text);
}

/** `text` with every credential shape replaced by `[REDACTED]` (`Bearer [REDACTED]` keeps the scheme word). */
export function maskCredentialShapes(text: string): string {
  if (!ANY_PREFIX.test(text)) return text;
  return text.replace(ALL, (match) => {
    const scheme = /^(Bearer|Basic)\s/.exec(match);
    return scheme ? `${scheme[1]} ${CREDENTIAL_MASK}` : CREDENTIAL_MASK;
  });
}
