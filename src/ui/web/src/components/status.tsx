/** One colour per state everywhere, always with its text label (never colour alone). */
const KIND: Record<string, string> = {
  OK: 'ok',
  completed: 'ok',
  UNSET: 'neutral',
  ERROR: 'failed',
  failed: 'failed',
  paused: 'paused',
  interrupted: 'paused',
  incomplete: 'running',
  running: 'running',
  orphaned: 'failed',
  needs_attention: 'paused',
  resumed: 'ok',
  parked: 'paused',
  passed: 'ok',
  invalid: 'failed',
  regressed: 'failed',
  'no regression': 'ok',
  approved: 'ok',
  rejected: 'failed',
};

const LABEL: Record<string, string> = { OK: 'ok', UNSET: 'unset', ERROR: 'error', needs_attention: 'needs attention' };

export function Status({ value }: { value: string }) {
  return <span className={`status status-${KIND[value] ?? 'neutral'}`}>{LABEL[value] ?? value}</span>;
}
