/**
 * A request the OTLP endpoint refuses as a whole: the HTTP status to answer, a one-line message for the answer's
 * `google.rpc.Status` (never a stack or a secret), and for 429/503 the seconds a client should wait.
 */
export class OtlpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
