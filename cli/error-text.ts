/**
 * One wording for the failures every command can meet, applied where the CLI prints errors (cli/base.ts), whatever
 * runner raised them: the execution id is named as such (`execution id '<id>'`, the runner that owns it after it),
 * and a trace as `trace id '<id>'`. The SDK's own messages vary by runner ("Chain 'x'", "Agent execution 'x'",
 * "Swarm 'team' execution 'x'"); a person reading the CLI sees one form.
 */

const RUNNER_EXECUTION = /^(?:(Chain|Agent|Swarm|Supervisor) )?(?:'([^']*)' )?(?:[Ee]xecution )?'([^']+)' ([\s\S]*)$/;

/** The CLI text of an error message with the given code. */
export function cliErrorText(code: string | undefined, message: string): string {
  if (code === 'already_resumed' || code === 'execution_busy' || code === 'checkpoint_not_found' || code === 'execution_not_found') {
    const match = message.match(RUNNER_EXECUTION);
    if (match) {
      const [, kind, name, id, rest] = match;
      return `execution id '${id}'${kind && name ? ` (${kind.toLowerCase()} '${name}')` : ''} ${rest}`;
    }
  }
  if (code === 'trace_not_found') return message.replace(/^trace '/, "trace id '");
  return message;
}
