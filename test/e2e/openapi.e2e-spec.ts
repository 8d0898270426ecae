import SwaggerParser from '@apidevtools/swagger-parser';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const COMMITTED = join(__dirname, '../../openapi/openapi.json');

/** Every schema the interface specification names (sections 2 and 4). */
const SPEC_SCHEMA_NAMES = [
  'ErrorEnvelope',
  'ErrorBody',
  'HTTPValidationError',
  'ExpiresAfterRequest',
  'RequestedSession',
  'ClientSecretSessionResponse',
  'AudioResponse',
  'AudioInputResponse',
  'TranscriptionRequest',
  'TranscriptionResponse',
  'TurnDetectionRequest',
  'TurnDetectionResponse',
  'IngressResponse',
  'ModelListResponse',
  'ProjectResponse',
  'SessionResponse',
  'SessionListResponse',
  'UsageListResponse',
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Record<string, any>;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0]);
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });
  afterAll(() => t?.close());

  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('matches the committed openapi/openapi.json (run with UPDATE_OPENAPI=1 to accept a change)', () => {
    const generated = `${JSON.stringify(doc, null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(COMMITTED, generated);
    expect(readFileSync(COMMITTED, 'utf8')).toBe(generated);
  });

  // The document is built from src/swagger-metadata.ts: a file older than the DTOs would serve, and
  // with UPDATE_OPENAPI=1 commit, a document without their newest fields.
  it('is built from swagger metadata that is what the DTOs give now', () => {
    const check = spawnSync(process.execPath, ['scripts/swagger-metadata.mjs', '--check'], { encoding: 'utf8' });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('declares the three ways to send an API key', () => {
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      token: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
      api_key: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
  });

  it('does not claim the keys are JWTs', () => {
    for (const scheme of Object.values(doc.components.securitySchemes as Record<string, object>)) {
      expect(scheme).not.toHaveProperty('bearerFormat');
    }
    expect(JSON.stringify(doc)).not.toMatch(/JWT/i);
  });

  it('names its schemas as the specification does, and none after the code', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(SPEC_SCHEMA_NAMES));
    expect(names.filter((name) => /dto$/i.test(name))).toEqual([]);
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.filter((name) => !names.includes(name))).toEqual([]);
  });

  it('links the AsyncAPI document of the sockets from its description', () => {
    expect(doc.info.description).toContain('/v1/asyncapi.json');
  });

  it('declares every error status with its body on authenticated operations', () => {
    const op = doc.paths['/v1/models'].get;
    for (const status of ['400', '401', '403', '404', '409', '429', '500', '503']) {
      expect(op.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
    }
    expect(op.responses['422'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/HTTPValidationError',
    );
    expect(op.security).toEqual(expect.arrayContaining([{ bearer: [] }, { token: [] }, { api_key: [] }]));
  });

  it('has response schemas built from the DTOs', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.ModelResponse.properties)).toEqual(
      expect.arrayContaining(['id', 'object', 'type', 'audio', 'voices', 'max_session_seconds', 'price']),
    );
    expect(Object.keys(schemas.ErrorBody.properties).sort()).toEqual([
      'code',
      'message',
      'param',
      'request_id',
      'retry_after_ms',
    ]);
    expect(doc.paths['/v1/openapi.json'].get.security ?? []).toEqual([]);
    expect(doc.paths['/healthz']).toBeUndefined();
  });
});
