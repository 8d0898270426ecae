/** The two endpoints' bodies and answers in the OpenAPI document (they are forms and audio, not DTOs). */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse, type ApiOkResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '../../platform/openapi/error.dto';

type ResponseOptions = NonNullable<Parameters<typeof ApiOkResponse>[0]>;
type SchemaObject = NonNullable<Extract<ResponseOptions, { schema?: unknown }>['schema']>;
type ContentObject = NonNullable<Extract<ResponseOptions, { content?: unknown }>['content']>;
import { RESPONSE_FORMATS } from './render/openai-formats';

export const TRANSCRIPTION_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'WAV, MP3, FLAC, Ogg, WebM or M4A, up to 25 MB' },
    model: {
      type: 'string',
      description:
        'vendor-asr-streaming, an OpenAI transcription model name (whisper-1, gpt-4o-transcribe…) or an alias',
    },
    language: { type: 'string', description: 'ISO-639-1; absent: auto' },
    prompt: {
      type: 'string',
      description: "Sent to the model's transcription upstream when its engine forwards files; ignored otherwise",
    },
    response_format: { type: 'string', enum: [...RESPONSE_FORMATS], default: 'json' },
    temperature: { type: 'number', minimum: 0, maximum: 1, description: 'Accepted, ignored' },
    'timestamp_granularities[]': {
      type: 'array',
      items: { type: 'string', enum: ['segment', 'word'] },
      description: 'With verbose_json',
    },
    stream: { type: 'boolean', description: 'Server-sent events (response_format json or text)' },
  },
};

const SEGMENT: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    start: { type: 'number' },
    end: { type: 'number' },
    text: { type: 'string' },
  },
};

export const TRANSCRIPTION_RESPONSE_CONTENT: ContentObject = {
  'application/json': {
    schema: {
      type: 'object',
      required: ['text'],
      properties: {
        text: { type: 'string' },
        task: { type: 'string', description: 'verbose_json' },
        language: { type: 'string', description: 'verbose_json' },
        duration: { type: 'number', description: 'verbose_json: seconds' },
        segments: { type: 'array', items: SEGMENT },
        words: {
          type: 'array',
          items: {
            type: 'object',
            properties: { word: { type: 'string' }, start: { type: 'number' }, end: { type: 'number' } },
          },
        },
        usage: {
          type: 'object',
          properties: { type: { type: 'string', enum: ['duration'] }, seconds: { type: 'number' } },
        },
      },
    },
  },
  'text/plain': { schema: { type: 'string', description: 'text and srt' } },
  'text/vtt': { schema: { type: 'string' } },
  'text/event-stream': {
    schema: { type: 'string', description: 'transcript.text.delta events, then one transcript.text.done' },
  },
};

export const LISTEN_BODY_SCHEMA: SchemaObject = {
  oneOf: [
    { type: 'string', format: 'binary', description: 'The audio file (or linear16 with encoding and sample_rate)' },
    {
      type: 'object',
      required: ['url'],
      properties: { url: { type: 'string', description: 'Fetched only from hosts the operator allows' } },
    },
  ],
};

const WORD: SchemaObject = {
  type: 'object',
  properties: {
    word: { type: 'string' },
    start: { type: 'number' },
    end: { type: 'number' },
    confidence: { type: 'number' },
    punctuated_word: { type: 'string' },
  },
};

export const LISTEN_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['metadata', 'results'],
  properties: {
    metadata: {
      type: 'object',
      properties: {
        request_id: { type: 'string', description: 'The session id' },
        sha256: { type: 'string' },
        created: { type: 'string', format: 'date-time' },
        duration: { type: 'number' },
        channels: { type: 'integer' },
        models: { type: 'array', items: { type: 'string' } },
      },
    },
    results: {
      type: 'object',
      properties: {
        channels: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              alternatives: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    transcript: { type: 'string' },
                    confidence: { type: 'number' },
                    words: { type: 'array', items: WORD },
                  },
                },
              },
            },
          },
        },
        utterances: { type: 'array', items: { type: 'object' } },
      },
    },
  },
};

/** What a transcription route answers when its engine forwards files to an upstream that fails. */
export const ApiUpstreamErrors = (): MethodDecorator =>
  applyDecorators(
    ApiResponse({
      status: 502,
      description: "Bad Gateway: `upstream_error`, the engine's transcription upstream failed (docs/api.md)",
      type: ErrorEnvelopeDto,
    }),
    ApiResponse({
      status: 504,
      description: "Gateway Timeout: `upstream_timeout`, the engine's transcription upstream did not answer in time",
      type: ErrorEnvelopeDto,
    }),
  );
