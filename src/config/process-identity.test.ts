import * as assert from 'uvu/assert';
import { hostname } from 'node:os';
import { suite } from '../../test-support/uvu.js';
import { newLeaseOwner } from '../durability/lease.js';
import { tracingResource } from '../tracing/setup.js';
import { instanceIdFrom, processIdentity, serviceInstanceId } from './process-identity.js';

const test = suite('config: the process identity');

test('OTEL_RESOURCE_ATTRIBUTES sets the instance id as the specification reads the variable', () => {
  assert.is(instanceIdFrom({}), undefined);
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod' }), undefined);
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=replica-7' }), 'replica-7');
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: ' a=b , service.instance.id = replica%2C7 ,' }), 'replica,7', 'trimmed and percent-decoded');
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=replica-7,broken' }), undefined, 'a malformed entry discards it all');
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=%E0%A4%A' }), undefined, 'bad percent-encoding too');
  assert.is(instanceIdFrom({ OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${'x'.repeat(256)}` }), undefined, 'over 255 characters too');
});

test('the identity is fixed for the process; lease owners and the tracing resource share its instance id', () => {
  const identity = processIdentity();
  assert.is(processIdentity(), identity);
  assert.equal({ ...identity }, { host: hostname(), pid: process.pid, instanceId: serviceInstanceId() });
  assert.match(identity.instanceId, /^[0-9a-f-]{36}$/, 'random (a UUID) when the environment does not set it');
  const owners = [newLeaseOwner(), newLeaseOwner()];
  assert.is.not(owners[0], owners[1], 'each lease owner is unique');
  for (const owner of owners) assert.ok(owner.startsWith(`${hostname()}:${process.pid}:${identity.instanceId}:`), owner);
  const attributes = tracingResource().attributes;
  assert.is(attributes['service.instance.id'], identity.instanceId);
  assert.is(attributes['process.pid'], process.pid);
  assert.is(attributes['host.name'], hostname());
  assert.is(attributes['process.command_args'], undefined, 'no command line (it may hold a token)');
});

test('service.name comes from OTEL_SERVICE_NAME, which wins over OTEL_RESOURCE_ATTRIBUTES', () => {
  const saved = { name: process.env.OTEL_SERVICE_NAME, attributes: process.env.OTEL_RESOURCE_ATTRIBUTES };
  try {
    delete process.env.OTEL_SERVICE_NAME;
    delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    assert.match(String(tracingResource().attributes['service.name']), /^unknown_service:/);
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'service.name=from-attributes,deployment.environment=staging';
    assert.is(tracingResource().attributes['service.name'], 'from-attributes');
    assert.is(tracingResource().attributes['deployment.environment'], 'staging');
    process.env.OTEL_SERVICE_NAME = 'support-desk';
    assert.is(tracingResource().attributes['service.name'], 'support-desk');
  } finally {
    if (saved.name === undefined) delete process.env.OTEL_SERVICE_NAME;
    else process.env.OTEL_SERVICE_NAME = saved.name;
    if (saved.attributes === undefined) delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    else process.env.OTEL_RESOURCE_ATTRIBUTES = saved.attributes;
  }
});

test.run();
