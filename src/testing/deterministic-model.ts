/**
 * What the scripted and function-backed models share: they count calls, keep a deep copy of the last requests they
 * received (tests assert on the exact history a model saw; bounded, so a served model answering for days keeps no
 * growing history), stream their turn word by word, and describe themselves
 * with a configuration that says they cannot be rebuilt from it.
 */
import { cloneJson } from '../json.js';
import { cloneMessages, type Message } from '../llm/messages.js';
import { eventsOf } from '../llm/events.js';
import type { CallOptions, ChatModel, ChatRequest, LlmConfig, LLMResponse, StreamEvent } from '../llm/types.js';
import { responseOf, type Turn } from './turn.js';

export interface DeterministicModelOptions {
  /** Reported as `gen_ai.request.model` (default per class). */
  model?: string;
  /** Wait this long before answering each call, honouring the abort signal (default 0). */
  delayMs?: number;
  /** How many of the latest requests `requests` keeps (default 100; 0 keeps none). `calls` counts them all. */
  historyLimit?: number;
}

/** Default of `historyLimit`. */
export const DEFAULT_HISTORY_LIMIT = 100;

/** A copy of one request as the model received it. */
export interface ReceivedRequest {
  messages: Message[];
  tools: ChatRequest['tools'];
  settings: ChatRequest['settings'];
}

export abstract class DeterministicModel implements ChatModel {
  abstract readonly provider: string;
  readonly model: string;
  /**
   * The latest `historyLimit` requests received (all of them in a test that makes fewer calls), oldest first,
   * deep-copied at the moment of the call.
   */
  readonly requests: ReceivedRequest[] = [];
  private readonly delayMs: number;
  private readonly historyLimit: number;
  private callCount = 0;
  private toolCallCounter = 0;

  protected constructor(defaultModel: string, options: DeterministicModelOptions) {
    this.model = options.model ?? defaultModel;
    this.delayMs = options.delayMs ?? 0;
    this.historyLimit = Math.max(0, options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
  }

  /** How many calls were made (complete and stream alike). */
  get calls(): number {
    return this.callCount;
  }

  /** The exact messages of each kept request (see `requests`), in order. */
  get received(): Message[][] {
    return this.requests.map((r) => r.messages);
  }

  /** Produce the turn for call number `call` (1-based). */
  protected abstract turnFor(request: ChatRequest, call: number): Promise<Turn | LLMResponse>;

  async complete(request: ChatRequest, options: CallOptions = {}): Promise<LLMResponse> {
    const call = ++this.callCount;
    if (this.historyLimit > 0) {
      if (this.requests.length >= this.historyLimit) this.requests.shift();
      this.requests.push({ messages: cloneMessages(request.messages), tools: cloneJson(request.tools), settings: cloneJson(request.settings) });
    }
    if (this.delayMs > 0) await wait(this.delayMs, options.signal);
    options.signal?.throwIfAborted();
    const turn = await this.turnFor(request, call);
    return isResponse(turn) ? turn : responseOf(turn, request, this.model, () => `call_${++this.toolCallCounter}`);
  }

  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    const response = await this.complete(request, options);
    for (const event of eventsOf(response)) {
      if (event.type === 'text_delta') {
        // Word by word, so consumers see a real stream of deltas.
        for (const piece of event.text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'text_delta', text: piece };
      } else yield event;
    }
  }

  toConfig(): LlmConfig {
    return { provider: this.provider, model: this.model };
  }
}

function isResponse(value: Turn | LLMResponse): value is LLMResponse {
  // Only a response names the model that answered; a turn never does.
  return typeof value === 'object' && 'model' in value && 'usage' in value;
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
