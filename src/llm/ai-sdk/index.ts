/** AI SDK models as agentkit chat models: `aiSdkModel(model, options)` over the V4 language-model specification. */
export { AI_SDK, aiSdkModel, AiSdkModel, type AiSdkModelOptions } from './model.js';
export { AI_SDK_SPECIFICATION_VERSION } from './specification.js';
