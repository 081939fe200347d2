/** The conformance harness: scenarios over backends and surfaces, timed uvu suites, coverage of spec rows. */
export { conformance, type ScenarioContext, type ScenarioOptions } from './scenario.js';
export { suite, DEFAULT_TIMEOUT_MS } from '../../test-support/uvu.js';
export type { Backend, BackendKind } from './backends.js';
export type { Surface } from './coverage.js';
export type { CliRun } from './cli.js';
export { postChunked, type RunningServer } from './http.js';
export { backendConfig, checkpointerFor, contractInitializer } from './checkpointers.js';
export { startCounterServer, type CounterServer } from '../../test-support/counter-server.js';
export { runTsFile, spawnNode, type NodeChild } from './processes.js';
export { startFakeProvider, type FakeProvider, type FakeReply, type RecordedRequest } from './fake-provider.js';
export { startCli, type CliProcess } from './cli-process.js';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../test-support/otlp-receiver.js';
export { startPlatform, type LocalPlatform } from './platform.js';
