import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { runnerOfCheckpoint, runnerOfExecution } from './owner.js';

const test = suite('runnerOfCheckpoint');

test('the root segment of agent_path wins over chain_name (a paused swarm row is written by its inner agent)', () => {
  assert.equal(runnerOfCheckpoint({ agent_path: 'swarm:team/agent:analyst/tool:x', chain_name: 'analyst' }), { kind: 'swarm', name: 'team' });
  assert.equal(runnerOfCheckpoint({ agent_path: 'supervisor:planner/worker:b/tool:y', chain_name: 'b' }), { kind: 'supervisor', name: 'planner' });
  assert.equal(runnerOfCheckpoint({ agent_path: 'agent:refund-bot/tool:approve', chain_name: 'refund-bot' }), { kind: 'agent', name: 'refund-bot' });
  assert.equal(runnerOfCheckpoint({ agent_path: 'agent:solo', chain_name: 'solo' }), { kind: 'agent', name: 'solo' });
});

test('rows without a runner path are the chain named by chain_name', () => {
  assert.equal(runnerOfCheckpoint({ agent_path: null, chain_name: 'refund' }), { kind: 'chain', name: 'refund' });
  assert.equal(runnerOfCheckpoint({ agent_path: 'worker:b', chain_name: 'x' }), { kind: 'chain', name: 'x' });
  // Only the root segment names a runner: an agent below a non-runner segment does not own the row.
  assert.equal(runnerOfCheckpoint({ agent_path: 'worker:b/agent:x', chain_name: 'x' }), { kind: 'chain', name: 'x' });
});

test('an execution is its chain when any row has no path (a chain hosting an agent), else its root runner', () => {
  assert.equal(runnerOfExecution([]), null);
  assert.equal(
    runnerOfExecution([
      { agent_path: null, chain_name: 'support' },
      { agent_path: 'agent:approver', chain_name: 'approver' },
    ]),
    { kind: 'chain', name: 'support' },
  );
  assert.equal(
    runnerOfExecution([
      { agent_path: 'swarm:team', chain_name: 'team' },
      { agent_path: 'swarm:team/agent:a', chain_name: 'a' },
    ]),
    { kind: 'swarm', name: 'team' },
  );
  // Whichever row it is: a chain-hosted agent may have written the first row before the chain's own.
  assert.equal(
    runnerOfExecution([
      { agent_path: 'agent:approver', chain_name: 'approver' },
      { agent_path: null, chain_name: 'support' },
    ]),
    { kind: 'chain', name: 'support' },
  );
});

test.run();
