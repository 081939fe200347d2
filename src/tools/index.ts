/** Tools: function tools with validated arguments, replay classes, and the registry replay rebinds through. */
export { Tool, type ToolContext, type ToolDict, type ToolOptions } from './tool.js';
export { FunctionTool, tool, type FunctionToolOptions } from './function-tool.js';
export { ToolRegistry, currentToolRegistry, defaultToolRegistry, withToolRegistry } from './registry.js';
export { DEFAULT_REPLAY_CLASS, REPLAY_CLASSES, replayClassOf, type ReplayClass } from './replay-class.js';
export { invokeTool, outputText, type ToolOutcome } from './invoke.js';
export { CONTROL_FLOW, isControlFlowSignal } from './control-flow.js';
