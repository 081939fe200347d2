/**
 * A JSON payload collapsed to its first lines, with expand, copy and "view raw". Strings that hold JSON (payload
 * attributes are stored JSON-encoded) are shown parsed; huge strings are cut with their byte count.
 */
import { useState } from 'react';
import { bytes } from '../format.js';

const PREVIEW_LINES = 6;
const MAX_CHARS = 20_000;

function pretty(value: unknown): string {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length < 2_000_000) {
      try {
        return JSON.stringify(JSON.parse(trimmed), null, 2);
      } catch {
        return value;
      }
    }
    return value;
  }
  return JSON.stringify(value, null, 2) ?? 'null';
}

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const [open, setOpen] = useState(false);
  const [raw, setRaw] = useState(false);
  const [copied, setCopied] = useState(false);
  const text = raw && typeof value === 'string' ? value : pretty(value);
  const lines = text.split('\n');
  const long = lines.length > PREVIEW_LINES || text.length > 600;
  let shown = open ? text : lines.slice(0, PREVIEW_LINES).join('\n').slice(0, 600);
  const cut = shown.length > MAX_CHARS;
  if (cut) shown = shown.slice(0, MAX_CHARS);
  return (
    <div className="json">
      <div className="json-tools">
        {label ? <span className="json-label">{label}</span> : null}
        {long ? (
          <button type="button" className="link-button" onClick={() => setOpen(!open)}>
            {open ? 'collapse' : `expand (${lines.length} lines)`}
          </button>
        ) : null}
        {typeof value === 'string' ? (
          <button type="button" className="link-button" onClick={() => setRaw(!raw)}>
            {raw ? 'formatted' : 'view raw'}
          </button>
        ) : null}
        <button
          type="button"
          className="link-button"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? 'copied' : 'copy'}
        </button>
      </div>
      <pre>
        {shown}
        {!open && long ? '\n…' : ''}
        {cut ? `\n… truncated, ${bytes(new TextEncoder().encode(text).length)} in all` : ''}
      </pre>
    </div>
  );
}
