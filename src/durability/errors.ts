/**
 * The durability errors. Each carries a stable code from the contract, so the SDK, the CLI (`agentkit resume` exits
 * 2 on AlreadyResumed) and the UI (409) report the same failure the same way.
 */
import { AgentkitError } from '../errors.js';

/**
 * A resume found nothing to resume: the pending interrupt was already claimed by another resumer, or the run has
 * already finished (a completed run, including a completed forked branch). Nothing was re-executed.
 */
export class AlreadyResumed extends AgentkitError {
  constructor(message: string) {
    super('already_resumed', message);
  }
}

/**
 * Another process is running this execution now: it holds the execution's lease (taken by every resume, renewed while
 * the run is alive, taken over only once it has expired). Nothing was run; try again when that run has finished or
 * its owner has died and the lease expired.
 */
export class ExecutionBusy extends AgentkitError {
  constructor(message: string, code: 'execution_busy' | 'idempotency_key_in_use' | 'run_stopped' = 'execution_busy') {
    super(code, message);
  }
}

/**
 * This process lost the lease of an execution it was running (docs/adr/0015): a fenced write found another owner or
 * a newer generation on the lease, or the lease could not be renewed (the store refused or could not be reached).
 * The run stopped before its next step or tool call and writes nothing more for the execution; whoever holds the
 * lease now continues it. An ExecutionBusy (code `execution_busy`: 409, exit 2): another process runs it.
 */
export class LeaseLost extends ExecutionBusy {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseLost';
  }
}

/**
 * The process is shutting down and stopped the run (docs/adr/0051): at a step boundary, once its checkpoint was
 * written (`atBoundary`: its lease is released, still active, so another process's recovery sweep continues it at
 * once), or, past the grace period, wherever it was (its lease is left to expire, then it is recovered). Not a
 * failure: no `failed` row is written. An ExecutionBusy (the run writes nothing more), with code `run_stopped`
 * (503): the served agent answers it with the execution id.
 */
export class RunStopped extends ExecutionBusy {
  constructor(
    readonly executionId: string,
    readonly atBoundary: boolean,
    message: string,
  ) {
    super(message, 'run_stopped');
  }
}

/**
 * A checkpoint needed by resume or fork is missing or unusable: no checkpoint for the execution, a fork from the
 * terminal row, a checkpoint naming a node the chain does not have.
 */
export class ChainCheckpointError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions, code: 'chain_checkpoint_error' | 'chain_resume_error' = 'chain_checkpoint_error') {
    super(code, message, options);
  }
}

/**
 * A resume or fork was asked of a checkpoint that cannot continue that way: a paused run resumed without a resume
 * value, a fork from the last node (nothing downstream would run). A ChainCheckpointError, so one catch covers both.
 */
export class ChainResumeError extends ChainCheckpointError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options, 'chain_resume_error');
  }
}

/** An `idempotent` function returned a value that cannot be stored as JSON (raised at the first call). */
export class IdempotencyError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('idempotency_error', message, options);
  }
}

/** A Postgres schema name that is not a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`); rejected before any SQL runs. */
export class InvalidSchemaNameError extends AgentkitError {
  constructor(schema: string) {
    super(
      'invalid_schema_name',
      `invalid Postgres schema name ${JSON.stringify(schema)}: it must match [A-Za-z_][A-Za-z0-9_]* (letters, digits, underscores; not starting with a digit)`,
    );
  }
}

/**
 * A run's start row was refused because its request's `Idempotency-Key` is already recorded for another execution
 * (docs/adr/0052): a concurrent request with the same key won the store's unique constraint. Nothing of this run was
 * written; `executionId` names the run that was not started. An ExecutionBusy (the run stops without writing), with
 * code `idempotency_key_in_use` (409).
 */
export class IdempotencyKeyTaken extends ExecutionBusy {
  constructor(readonly executionId: string) {
    super(`the Idempotency-Key of execution '${executionId}' is already recorded for another execution; nothing was run`, 'idempotency_key_in_use');
  }
}
