/** Every command of the `agentkit` CLI, registered by cli/main.ts. One file per command group. */
import type { CommandClass } from 'clipanion';
import type { AgentkitContext } from '../context.js';
import { AgentServeCommand } from './agent.js';
import { InspectCommand, ListPendingCommand, ResumeCommand, SetupCheckpointerCommand } from './durability.js';
import { ExportTraceCommand, TracesExportCommand, TracesListCommand } from './traces.js';
import { EvalCompareCommand, EvalCurateCommand, EvalExportCommand, EvalRunCommand } from './eval.js';
import { McpServeCommand } from './mcp.js';
import { VersionCommand } from './version.js';

export const commands: ReadonlyArray<CommandClass<AgentkitContext>> = [
  VersionCommand,
  SetupCheckpointerCommand,
  ListPendingCommand,
  InspectCommand,
  ResumeCommand,
  TracesListCommand,
  TracesExportCommand,
  ExportTraceCommand,
  AgentServeCommand,
  McpServeCommand,
  EvalRunCommand,
  EvalCompareCommand,
  EvalCurateCommand,
  EvalExportCommand,
];
