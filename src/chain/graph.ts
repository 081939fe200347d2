/**
 * A chain's graph: nodes, edges with conditions, and the routing rule. Routing is a pure function of the node that
 * finished, the state and the edge counters, which is what makes a resume exact: restoring the checkpointed state and
 * counters and routing again picks the same next node (or, with a patched state, the one the patch leads to).
 *
 * Routing after a node: its outgoing edges are tried in the order they were connected; the first edge whose condition
 * holds wins; an edge without a condition is the fallback (at most one per node: no implicit fan-out). No edge taken
 * means the run ends (or, with `strictRouting`, fails with ChainRoutingError when conditions existed).
 *
 * Cycles: an edge that leads back to a node already on the path from the entry (a back edge), or any edge given
 * `maxIterations`, is capped: taking it more than `maxIterations` times (default the chain's, 10) raises
 * ChainCycleError. Counters are persisted in each checkpoint's `iteration_counters` as `cycle_<source>_<target>`.
 */
import type { JsonRecord } from '../durability/json.js';
import type { PendingInterrupt } from '../types.js';
import { ChainCycleError, ChainError, ChainRoutingError } from './errors.js';

/** What a node receives besides the state. */
export interface NodeContext {
  readonly executionId: string;
  readonly chainName: string;
  readonly nodeId: string;
  /** The step number of this node execution within the execution (0-based, across resumes). */
  readonly iteration: number;
  /** The `context` given to run, resume or fork (not persisted). */
  readonly context: unknown;
  /**
   * When this node re-executes after a pause: the pending row claimed for the resume, with the reason and context
   * frozen at pause time. Null otherwise.
   */
  readonly resumed: PendingInterrupt | null;
  /** Aborted when the run is cancelled (RunOptions.signal); a long node should stop when it fires. */
  readonly signal: AbortSignal;
}

/** A node body: gets a private copy of the state; returns its output (a plain object is merged into the state). */
export type NodeFunction<S extends JsonRecord = JsonRecord> = (state: S, ctx: NodeContext) => unknown;

/**
 * Anything with `run(input, options)`: an Agent, another runner. It runs inside the chain's execution scope
 * (`currentScope()` names the chain's execution and checkpointer), so an `interrupt()` it does not catch pauses the
 * chain at this node. A runner that records its own pause under the chain's execution returns a result with
 * `status: 'paused'` and `pending_interrupt`; the chain then pauses too and resumes this node with the value bound.
 */
export interface Runner {
  run(input: unknown, options?: { context?: unknown; signal?: AbortSignal }): unknown;
}

export interface NodeOptions {
  /** Store the output under this state key instead of merging it. */
  outputKey?: string;
  /** Runner nodes: the state key whose value is the runner's input (default `input`). */
  inputKey?: string;
}

/** An edge condition: a pure function of the state (it is re-evaluated on resume). */
export type Condition<S extends JsonRecord = JsonRecord> = (state: Readonly<S>) => boolean;

export interface EdgeOptions<S extends JsonRecord = JsonRecord> {
  condition?: Condition<S>;
  /** Cap on how often this edge may be taken in one execution (back edges default to the chain's cap). */
  maxIterations?: number;
  /** A name for people reading the graph. */
  label?: string;
}

export interface NodeDef<S extends JsonRecord = JsonRecord> {
  readonly id: string;
  readonly kind: 'function' | 'runner';
  readonly fn?: NodeFunction<S>;
  readonly runner?: Runner;
  readonly outputKey?: string;
  readonly inputKey?: string;
}

export interface EdgeDef<S extends JsonRecord = JsonRecord> {
  readonly source: string;
  readonly target: string;
  readonly condition?: Condition<S>;
  readonly maxIterations?: number;
  readonly label?: string;
}

interface Layout {
  /** node id -> topological index (back edges ignored). */
  index: Map<string, number>;
  /** `source\u0000target` of back edges. */
  backEdges: Set<string>;
}

export class Graph<S extends JsonRecord = JsonRecord> {
  readonly nodes = new Map<string, NodeDef<S>>();
  readonly edges: EdgeDef<S>[] = [];
  private layout: Layout | undefined;

  constructor(
    private readonly chainName: string,
    private entryId?: string,
  ) {}

  addNode(id: string, body: NodeFunction<S> | Runner, options: NodeOptions = {}): void {
    if (typeof id !== 'string' || id === '' || id === '__fork_origin__' || id === 'run_end') {
      throw new ChainError(`chain '${this.chainName}': invalid node id ${JSON.stringify(id)} (non-empty; not run_end or __fork_origin__)`);
    }
    if (this.nodes.has(id)) throw new ChainError(`chain '${this.chainName}' already has a node '${id}'`);
    let node: NodeDef<S>;
    if (typeof body === 'function') node = { id, kind: 'function', fn: body, ...options };
    else if (body && typeof (body as Runner).run === 'function') node = { id, kind: 'runner', runner: body, ...options };
    else throw new ChainError(`chain '${this.chainName}': node '${id}' must be a function (state, ctx) or an object with run(input, options)`);
    this.nodes.set(id, node);
    this.layout = undefined;
  }

  connect(source: string, target: string, options: EdgeOptions<S> = {}): void {
    for (const id of [source, target]) {
      if (!this.nodes.has(id))
        throw new ChainError(`chain '${this.chainName}': cannot connect '${source}' -> '${target}': no node '${id}' (add nodes before connecting them)`);
    }
    if (options.condition !== undefined && typeof options.condition !== 'function') {
      throw new ChainError(`chain '${this.chainName}': the condition of '${source}' -> '${target}' must be a function of the state`);
    }
    if (options.maxIterations !== undefined && (!Number.isInteger(options.maxIterations) || options.maxIterations < 1)) {
      throw new ChainError(`chain '${this.chainName}': maxIterations of '${source}' -> '${target}' must be a positive integer`);
    }
    if (!options.condition && this.edges.some((e) => e.source === source && !e.condition)) {
      throw new ChainError(
        `chain '${this.chainName}': '${source}' already has an unconditional edge; give '${source}' -> '${target}' a condition (a node routes to one next node)`,
      );
    }
    this.edges.push({ source, target, ...options });
    this.layout = undefined;
  }

  /** The node runs start at: the one given to the chain, else the first added. Throws when the chain is empty. */
  entry(): string {
    const entry = this.entryId ?? this.nodes.keys().next().value;
    if (entry === undefined) throw new ChainError(`chain '${this.chainName}' has no nodes`);
    if (!this.nodes.has(entry)) throw new ChainError(`chain '${this.chainName}': entry node '${entry}' does not exist`);
    return entry;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  node(id: string): NodeDef<S> {
    const node = this.nodes.get(id);
    if (!node) throw new ChainError(`chain '${this.chainName}' has no node '${id}'`);
    return node;
  }

  /** The node's topological index (back edges ignored), used as `node_index`. */
  indexOf(id: string): number {
    return this.computeLayout().index.get(id) ?? 0;
  }

  /**
   * The node to run after `nodeId`, and the edge counters after taking the edge to it. `next` is null when no edge
   * is taken. Throws ChainCycleError past a cap and ChainRoutingError (strict routing) when nothing matched.
   */
  route(
    nodeId: string,
    state: Readonly<S>,
    counters: Readonly<Record<string, number>>,
    options: { defaultMaxIterations: number; strictRouting: boolean },
  ): { next: string | null; counters: Record<string, number> } {
    const outgoing = this.edges.filter((e) => e.source === nodeId);
    const chosen = outgoing.find((e) => e.condition?.(state) === true) ?? outgoing.find((e) => !e.condition);
    if (!chosen) {
      if (options.strictRouting && outgoing.length > 0) {
        throw new ChainRoutingError(`chain '${this.chainName}': no edge out of '${nodeId}' matched the state and there is no unconditional edge`);
      }
      return { next: null, counters: { ...counters } };
    }
    const back = this.computeLayout().backEdges.has(`${chosen.source}\u0000${chosen.target}`);
    if (!back && chosen.maxIterations === undefined) return { next: chosen.target, counters: { ...counters } };
    const key = `cycle_${chosen.source}_${chosen.target}`;
    const cap = chosen.maxIterations ?? options.defaultMaxIterations;
    const taken = (counters[key] ?? 0) + 1;
    if (taken > cap) {
      throw new ChainCycleError(
        `chain '${this.chainName}': edge '${chosen.source}' -> '${chosen.target}' would be taken for the ${ordinal(taken)} time, over its cap of ${cap} (maxIterations); the cycle did not exit`,
      );
    }
    return { next: chosen.target, counters: { ...counters, [key]: taken } };
  }

  private computeLayout(): Layout {
    if (this.layout) return this.layout;
    const order = [...this.nodes.keys()];
    const backEdges = new Set<string>();
    const state = new Map<string, 'open' | 'done'>();
    const visit = (id: string) => {
      state.set(id, 'open');
      for (const edge of this.edges.filter((e) => e.source === id)) {
        const seen = state.get(edge.target);
        if (seen === 'open') backEdges.add(`${edge.source}\u0000${edge.target}`);
        else if (seen === undefined) visit(edge.target);
      }
      state.set(id, 'done');
    };
    const entry = this.entryId && this.nodes.has(this.entryId) ? [this.entryId] : [];
    for (const id of [...entry, ...order]) if (!state.has(id)) visit(id);
    const forward = this.edges.filter((e) => !backEdges.has(`${e.source}\u0000${e.target}`));
    const incoming = new Map(order.map((id) => [id, 0]));
    for (const e of forward) incoming.set(e.target, (incoming.get(e.target) ?? 0) + 1);
    const index = new Map<string, number>();
    const ready = [...entry, ...order.filter((id) => id !== entry[0])].filter((id) => incoming.get(id) === 0);
    while (ready.length > 0) {
      const id = ready.shift()!;
      if (index.has(id)) continue;
      index.set(id, index.size);
      for (const e of forward.filter((f) => f.source === id)) {
        const left = (incoming.get(e.target) ?? 0) - 1;
        incoming.set(e.target, left);
        if (left === 0) ready.push(e.target);
      }
    }
    this.layout = { index, backEdges };
    return this.layout;
  }
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}
