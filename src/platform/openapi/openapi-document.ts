import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

const DESCRIPTION = [
  'Session API for hosted continuous speech models: live voice conversations (`vendor-voicechat`) and ' +
    'streaming transcription (`vendor-asr-streaming`). Public beta.',
  '',
  'To try a call here, press **Authorize** and paste an API key (`wk_…`) under `bearer`.',
  '',
  'The WebSocket protocols (the live socket, the Realtime-, Deepgram- and Deepgram Flux-compatible sockets: ' +
    'channels, every client and server event, close reasons and refusal codes) are described by the AsyncAPI 3 ' +
    'document at [/v1/asyncapi.json](/v1/asyncapi.json).',
  '',
  'Try it in a browser: [the playground](/playground/) (talk, or watch your speech transcribed).',
].join('\n');

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Continuum')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    // Not addBearerAuth(): it declares `bearerFormat: JWT`, and our keys are opaque `wk_…` strings.
    .addSecurity('bearer', { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' })
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: Token <API key>' },
      'token',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'X-API-Key: <API key>' }, 'api_key')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controller: string, method: string) => method,
  });
  return sortKeys(document);
}

/** Deterministic key order, so the committed document diffs cleanly and the drift test is exact. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    ) as T;
  }
  return value;
}
