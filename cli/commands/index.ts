/** Every command of the `agentkit` CLI, registered by cli/main.ts. One file per command group. */
import type { CommandClass } from 'clipanion';
import type { AgentkitContext } from '../context.js';
import { AgentServeCommand } from './agent.js';
import { InspectCommand, ListPendingCommand, ResumeCommand, SetupCheckpointerCommand } from './durability.js';
import { ExportTraceCommand, TracesExportCommand, TracesListCommand } from './traces.js';
import { KbAddCommand, KbClearCommand, KbDeleteCommand, KbListCommand, KbSearchCommand, KbStatusCommand } from './kb.js';
import { EvalCompareCommand, EvalCurateCommand, EvalExportCommand, EvalRunCommand } from './eval.js';
import { McpServeCommand } from './mcp.js';
import { ReplayForkCommand, ReplayInspectCommand, ReplayShowCommand } from './replay.js';
import { MigrateCommand } from './migrate.js';
import { PromptsAddCommand, PromptsDiffCommand, PromptsFragmentCommand, PromptsLabelCommand, PromptsListCommand, PromptsShowCommand } from './prompts.js';
import { UiResetPasswordCommand, UiStartCommand } from './ui.js';
import { VersionCommand } from './version.js';
import { ConnectCommand, DisconnectCommand } from './connect.js';
import { AuthEnvCommand, AuthStatusCommand } from './auth.js';

export const commands: ReadonlyArray<CommandClass<AgentkitContext>> = [
  VersionCommand,
  SetupCheckpointerCommand,
  ListPendingCommand,
  InspectCommand,
  ResumeCommand,
  TracesListCommand,
  TracesExportCommand,
  ExportTraceCommand,
  ReplayShowCommand,
  ReplayInspectCommand,
  ReplayForkCommand,
  AgentServeCommand,
  McpServeCommand,
  PromptsListCommand,
  PromptsDiffCommand,
  PromptsAddCommand,
  PromptsShowCommand,
  PromptsLabelCommand,
  PromptsFragmentCommand,
  KbListCommand,
  KbStatusCommand,
  KbAddCommand,
  KbDeleteCommand,
  KbClearCommand,
  KbSearchCommand,
  MigrateCommand,
  UiStartCommand,
  UiResetPasswordCommand,
  EvalRunCommand,
  EvalCompareCommand,
  EvalCurateCommand,
  EvalExportCommand,
  ConnectCommand,
  DisconnectCommand,
  AuthStatusCommand,
  AuthEnvCommand,
];
