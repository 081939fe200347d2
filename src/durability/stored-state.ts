/**
 * A checkpoint row's state is checked (JSON, ./json.ts) and masked (registered secrets, ../config/redact.ts) as it
 * is written, and only the part the row stores (ADR 0028): a full snapshot whole, a delta row the values it sets
 * and the items or text it appends. The rest of the state was checked and masked when the row that stored it was
 * written: values handed to a checkpointer are immutable once stored (./delta.ts), and a newly registered secret
 * makes the next row a full snapshot again. Before, every row walked the whole state twice (the JSON check and, with
 * a secret registered, the redactor), so an Agent's step cost grew with its history.
 */
import { appendStaysClean, hasSecrets, redactText, redactValue } from '../config/redact.js';
import { nonJsonReason, type JsonRecord } from './json.js';
import { invalid } from './rows.js';

/** The parts of a delta document (./delta.ts). */
export interface DeltaDoc {
  set?: JsonRecord;
  append?: Record<string, unknown[] | string>;
  unset?: string[];
}

const STATE_PATH = '$.state_snapshot';

/** A full state as stored: refused with its path named when it is not JSON, else masked (copy on write). */
export function storedFullState(state: JsonRecord): JsonRecord {
  refuseNonJson(state, STATE_PATH);
  return redactValue(state);
}

/**
 * A delta as stored: each set value and appended item checked (paths name the state's key and the item's index in
 * the whole array) and masked. A text appended to a string whose join a secret straddles becomes a `set` of the
 * whole text, masked. `before` is the state the delta applies to, as it was when stored (arrays at their stored length).
 */
export function storedDelta(doc: DeltaDoc, before: JsonRecord): DeltaDoc {
  const stored: DeltaDoc = {};
  const secrets = hasSecrets();
  for (const [key, value] of Object.entries(doc.set ?? {})) {
    refuseNonJson(value, `${STATE_PATH}.${key}`);
    (stored.set ??= {})[secrets ? redactText(key) : key] = redactValue(value);
  }
  for (const [key, added] of Object.entries(doc.append ?? {})) {
    const old = before[key];
    if (typeof added === 'string') {
      if (!appendStaysClean(old as string, added)) (stored.set ??= {})[key] = redactText((old as string) + added);
      else (stored.append ??= {})[key] = redactText(added);
      continue;
    }
    const offset = Array.isArray(old) ? old.length : 0;
    if (nonJsonReason(added) !== null) {
      for (let i = 0; i < added.length; i++) refuseNonJson(added[i], `${STATE_PATH}.${key}[${offset + i}]`);
    }
    (stored.append ??= {})[key] = redactValue(added);
  }
  if (doc.unset) stored.unset = secrets ? doc.unset.map(redactText) : doc.unset;
  return stored;
}

function refuseNonJson(value: unknown, path: string): void {
  const reason = nonJsonReason(value, path);
  if (reason) invalid('state_snapshot', `is not JSON (${reason})`);
}
