import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { recordingServer } from '../../../test-support/recording-server.js';
import { ConfigError } from '../../errors.js';
import { ToolRegistry } from '../registry.js';
import { restToolsFromOpenAPI } from './openapi.js';

const test = suite('openapi import');

const DOC = `
openapi: 3.1.0
info: { title: Pets, version: '1' }
servers:
  - url: 'http://{host}/v1'
    variables: { host: { default: 'pets.example' } }
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - { name: limit, in: query, schema: { type: integer, maximum: 100 }, description: How many }
        - { name: X-Trace, in: header, schema: { type: string } }
    post:
      operationId: createPet
      summary: Create a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/NewPet' }
  /pets/{petId}:
    parameters:
      - { name: petId, in: path, required: true, schema: { type: string } }
    get:
      operationId: showPet
      description: Show one pet
    put:
      operationId: replacePet
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/NewPet' }
    delete:
      operationId: deletePet
      parameters:
        - { name: force, in: query, schema: { type: boolean } }
  /upload:
    post:
      operationId: upload
      requestBody:
        content:
          multipart/form-data:
            schema: { type: object }
  /search:
    post:
      operationId: search
      parameters:
        - { name: page, in: query, schema: { type: integer } }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { q: { type: string } } }
components:
  schemas:
    NewPet:
      type: object
      required: [name]
      properties:
        name: { type: string }
        tag: { $ref: '#/components/schemas/Tag' }
    Tag: { type: string, enum: [cat, dog] }
`;

test('one tool per operation: names, methods, mappings, replay classes and resolved schemas; the rest is reported', async () => {
  const registry = new ToolRegistry();
  const tools = await restToolsFromOpenAPI(DOC, { registry });
  assert.equal(
    tools.map((t) => [t.name, t.method, t.bodyMapping, t.replayClass, t.url]),
    [
      ['listPets', 'GET', 'query_params', 'read_only', 'http://pets.example/v1/pets'],
      ['createPet', 'POST', 'json_body', 'side_effecting', 'http://pets.example/v1/pets'],
      ['showPet', 'GET', 'path_params', 'read_only', 'http://pets.example/v1/pets/{petId}'],
      ['replacePet', 'PUT', 'json_body', 'idempotent', 'http://pets.example/v1/pets/{petId}'],
      ['deletePet', 'DELETE', 'path_params', 'idempotent', 'http://pets.example/v1/pets/{petId}'],
    ],
  );
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.listPets!.parameters, { type: 'object', properties: { limit: { type: 'integer', maximum: 100, description: 'How many' } } });
  assert.is(byName.listPets!.description, 'List pets');
  assert.equal(byName.createPet!.parameters, {
    type: 'object',
    properties: { name: { type: 'string' }, tag: { type: 'string', enum: ['cat', 'dog'] } },
    required: ['name'],
  });
  assert.equal(byName.replacePet!.parameters.required, ['petId'], 'an optional body keeps only the path parameter required');
  assert.equal(tools.skipped, [
    { operation: 'POST /upload', reason: 'its request body is not JSON (multipart/form-data)' },
    { operation: 'POST /search', reason: 'it has query parameters and a JSON body, which one body_mapping cannot express' },
  ]);
  assert.equal(registry.names(), ['createPet', 'deletePet', 'listPets', 'replacePet', 'showPet']);
});

test('chosen operations against a local server: requests arrive as the document describes, with the headers', async () => {
  const server = await recordingServer();
  try {
    const tools = await restToolsFromOpenAPI(JSON.stringify(await import('yaml').then((y) => y.parse(DOC))), {
      operations: ['showPet', 'POST /pets', 'replacePet'],
      baseUrl: `${server.url}/api/`,
      headers: { Authorization: 'Bearer openapi-token-0042' },
      allowHosts: ['127.0.0.1'],
      registry: false,
    });
    assert.equal(
      tools.map((t) => t.name),
      ['showPet', 'createPet', 'replacePet'],
    );
    await tools[0]!.execute({ petId: 'p/1' });
    await tools[1]!.execute({ name: 'Rex', tag: 'dog' });
    await tools[2]!.execute({ petId: '7', name: 'Tom' });
    assert.equal(
      server.requests.map((r) => [r.method, r.path, r.body, r.headers.authorization]),
      [
        ['GET', '/api/pets/p%2F1', '', 'Bearer openapi-token-0042'],
        ['POST', '/api/pets', '{"name":"Rex","tag":"dog"}', 'Bearer openapi-token-0042'],
        ['PUT', '/api/pets/7', '{"name":"Tom"}', 'Bearer openapi-token-0042'],
      ],
    );
    assert.equal(tools[1]!.toDict().config.headers, { Authorization: '***' });
    const bad = await tools[1]!.execute({ tag: 'bird' }).then(
      () => null,
      (e: Error) => e.message,
    );
    assert.match(bad!, /invalid arguments: .*name/);
  } finally {
    await server.close();
  }
});

test('errors: not OpenAPI 3, an unknown or inexpressible chosen operation, no base URL, external refs', async () => {
  const fails = async (doc: unknown, options: Parameters<typeof restToolsFromOpenAPI>[1], pattern: RegExp) => {
    const error = await restToolsFromOpenAPI(doc, { registry: false, ...options }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, pattern);
  };
  await fails({ swagger: '2.0' }, {}, /not an OpenAPI 3 document/);
  await fails(DOC, { operations: ['nope'] }, /the document has no operation 'nope'/);
  await fails(DOC, { operations: ['upload'] }, /operation 'POST \/upload' cannot be a REST tool: its request body is not JSON/);
  await fails({ openapi: '3.0.3', info: {}, paths: {} }, {}, /lists no servers; pass baseUrl/);
  await fails({ openapi: '3.0.3', info: {}, servers: [{ url: '/relative' }], paths: {} }, {}, /not an absolute http\(s\) URL/);
  await fails(
    {
      openapi: '3.0.3',
      info: {},
      servers: [{ url: 'http://x.example' }],
      paths: { '/a': { get: { operationId: 'a', parameters: [{ $ref: 'http://127.0.0.1:9/p.json' }] } } },
    },
    {},
    /cannot resolve the document's \$refs/,
  );
});

test.run();
