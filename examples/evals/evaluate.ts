/**
 * `evaluate()` from code: the support agent against the example dataset with two built-in scorers and a custom one,
 * a gate, and the stored run. Run it with:
 *
 *   node --conditions=agentkit-source --import tsx examples/evals/evaluate.ts
 *
 * The run is saved in the local store (AGENTKIT_LOCAL_DB, else ./.agentkit/local.db), where `agentkit eval compare`
 * finds it by its name.
 */
import { evaluate, scorer } from 'agentkit';
import { fileURLToPath } from 'node:url';
import { support } from './support-agent.js';

const dataset = fileURLToPath(new URL('./cases.jsonl', import.meta.url));
const oneWord = scorer('one_word', (_input, output) => ({ score: output.trim().split(/\s+/).length === 1 ? 1 : 0, reason: 'one word asked' }));

const results = await evaluate(support, dataset, ['exact_match', 'contains', oneWord], {
  runName: 'example',
  concurrency: 4,
  gate: { failUnder: ['contains.pass_rate=0.6', 'overall.pass_rate=0.6'], maxErrorRate: 0.1 },
});

for (const metric of results.scorecard.metrics) console.log(`${metric.name}: pass_rate=${metric.pass_rate} avg_score=${metric.avg_score}`);
console.log(`gate: ${results.gate!.outcome}`);
for (const check of results.gate!.checks) console.log(`  ${check}`);
console.log(`run ${results.run_id} saved to ${results.db_path}`);
