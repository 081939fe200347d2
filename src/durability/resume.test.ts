import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { ValidationError } from '../errors.js';
import { toResume } from './resume.js';

const test = suite('Resume');

test('keeps approved and metadata, defaults metadata to {}, drops unknown keys', () => {
  assert.equal(toResume({ approved: true }), { approved: true, metadata: {} });
  assert.equal(toResume({ approved: false, metadata: { note: 'no' }, data: { lost: true }, reason: 'x' }), { approved: false, metadata: { note: 'no' } });
  assert.equal(toResume({ approved: true, metadata: null }), { approved: true, metadata: {} });
});

test('refuses what is not a Resume, naming the field', () => {
  const cases: Array<[unknown, RegExp, string]> = [
    [null, /must be an object/, ''],
    [[true], /must be an object/, ''],
    ['yes', /must be an object/, ''],
    [{}, /boolean "approved"/, '/approved'],
    [{ approved: 'true' }, /boolean "approved"/, '/approved'],
    [{ approved: true, metadata: [] }, /"metadata" of a resume value must be an object/, '/metadata'],
    [{ approved: true, metadata: { at: new Map() } }, /must be JSON \(\$\.metadata\.at: a Map instance/, '/metadata'],
  ];
  for (const [value, message, path] of cases) {
    try {
      toResume(value);
      assert.unreachable(`accepted ${JSON.stringify(value)}`);
    } catch (error) {
      assert.instance(error, ValidationError);
      assert.match((error as Error).message, message);
      assert.is((error as ValidationError).issues[0]!.path, path);
    }
  }
});

test.run();
