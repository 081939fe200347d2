/**
 * The error a tool throws on purpose: a refused destination (`ssrf_blocked`), arguments that fail the tool's schema
 * (`validation_failed`), or a failed call (`tool_execution_error`: an HTTP error status, a timeout, an oversized
 * response, an MCP tool reporting an error). Inside a run it becomes the `Error: ...` result the model reads, and the
 * tool span records its code. Messages never carry header or credential values.
 */
import { AgentkitError } from '../errors.js';

export type ToolErrorCode = 'tool_execution_error' | 'ssrf_blocked' | 'validation_failed';

export interface ToolErrorOptions extends ErrorOptions {
  /** A transient failure (the connection failed, the attempt timed out) that another attempt may not meet. */
  retryable?: boolean;
}

export class ToolError extends AgentkitError {
  declare readonly code: ToolErrorCode;
  readonly retryable: boolean;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    const { retryable, ...rest } = options;
    super(code, message, rest);
    this.retryable = retryable === true;
  }
}
