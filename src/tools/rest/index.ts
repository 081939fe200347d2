/** REST tools: tools that call an HTTP endpoint from configuration alone, through the SSRF-safe client. */
export { RESTTool, REST_METHODS, DEFAULT_MAX_RETRIES, type RESTToolOptions, type RestMethod, type RestToolConfig } from './rest-tool.js';
export { loadRestTools, restToolFromConfig, type RestConfigOverrides } from './config.js';
export { BODY_MAPPINGS, encodePathValue, type BodyMapping } from './mapping.js';
export { REDACTED } from './headers.js';
export { restToolsFromOpenAPI, type OpenAPIToolOptions, type OpenAPITools } from './openapi.js';
