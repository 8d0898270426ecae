/**
 * One batch transcription, whichever endpoint asked: the upload (on disk) is decoded by ffmpeg, waits
 * for an engine stream in the batch queue, becomes a session, is cut at silences and recognised on as
 * many streams as the budget spares (or sent whole to the engine's transcription upstream), then
 * billed by its duration and closed.
 */
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { ENGINE_REGISTRY, EngineRegistry } from '../../engines';
import {
  DEFAULT_LANGUAGE,
  FileTranscriptionError,
  FRAME_MS,
  type FileTranscriber,
  type FileTranscript,
  type FileTranscriptionRequest,
  type SpeechEngine,
} from '../../session-core';
import type { ApiKeyPrincipal } from '../auth';
import { ModelCatalog } from '../models';
import { type BatchDialect, BatchSessions } from './batch-sessions';
import { BatchTranscriber, type TranscriptSegment } from './batch/batch-transcriber';
import { SPLIT_DEFAULTS, splitAtSilences } from './batch/silence-splitter';
import { StreamBudget } from './batch/stream-budget';
import { detectContainer } from './decoding/audio-format';
import { decodeAudio, DecoderUnavailableError, type RawPcm, UndecodableAudioError } from './decoding/ffmpeg-decoder';
import { transcriptionModelOf } from './transcription-models';
import type { TranscriptResult } from './transcription.types';
import type { SavedUpload } from './upload/upload-reader';
import { upstreamFile } from './upload/upstream-file';

/** OpenAI's limit for this endpoint; Deepgram's is larger, but one limit per service is simpler to state. */
export const UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

export interface TranscriptionRequest {
  model?: string;
  /** A headerless pcm16 body (Deepgram's `encoding=linear16`); absent: a container, read from its bytes. */
  rawPcm?: RawPcm | null;
  language?: string | null;
  /** Each piece's segments as soon as it and those before it are done (stream=true). */
  onSegments?: (segments: TranscriptSegment[]) => void;
  /** The client went away: stop. */
  signal?: AbortSignal;
  /** Context for an engine that forwards files to an upstream (OpenAI's `prompt`); others ignore it. */
  prompt?: string | null;
  /** The metrics' `dialect` label of the session: the endpoint's family. */
  dialect: BatchDialect;
}

/** A scratch folder per request, removed when it is done. */
export interface Workspace {
  dir: string;
  dispose(): Promise<void>;
}

@Injectable()
export class TranscriptionsService implements OnModuleInit {
  private readonly logger = new Logger('Transcriptions');
  private readonly budgets = new Map<SpeechEngine | FileTranscriber, StreamBudget>();
  private readonly root: string;

  constructor(
    private readonly config: AppConfig,
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
    private readonly models: ModelCatalog,
    private readonly batches: BatchSessions,
  ) {
    this.root = join(config.dataDir, 'transcriptions');
  }

  async onModuleInit(): Promise<void> {
    // Uploads a killed process left behind.
    await rm(this.root, { recursive: true, force: true });
    await mkdir(this.root, { recursive: true });
  }

  async workspace(): Promise<Workspace> {
    const dir = await mkdtemp(join(this.root, 'req-'));
    return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
  }

  /** Checks what can be checked before the upload is read. */
  resolveModel(requested: string | undefined, language: string | null | undefined, param = 'model'): string {
    const model = transcriptionModelOf(requested, this.config.realtimeModelAliases, param);
    this.models.checkLanguage(model, language, 'language');
    return model;
  }

  async transcribe(
    principal: ApiKeyPrincipal,
    upload: SavedUpload,
    workspace: Workspace,
    request: TranscriptionRequest,
  ): Promise<TranscriptResult> {
    const model = this.resolveModel(request.model, request.language);
    const language = request.language || DEFAULT_LANGUAGE;
    if (upload.bytes === 0) throw new AppError('invalid_request', 'The file is empty', { param: 'file' });
    const container = request.rawPcm ?? detectContainer(upload.head);
    if (container === null) {
      throw new AppError(
        'invalid_request',
        'The file is not audio this service reads: send WAV, MP3, FLAC, Ogg (Opus or Vorbis), WebM or M4A/MP4',
        { param: 'file' },
      );
    }
    const limits = this.config.transcriptions;
    const [decoded, sha256] = await Promise.all([
      decodeAudio({
        inputPath: upload.path,
        container,
        pcmPath: join(workspace.dir, 'audio.pcm'),
        maxAudioSeconds: limits.maxAudioSeconds,
        timeoutMs: 30_000 + limits.maxAudioSeconds * 20, // ffmpeg decodes compressed audio at hundreds of times real time
      }).catch((error: unknown) => {
        if (error instanceof UndecodableAudioError)
          this.logger.log({ container, detail: error.detail }, 'undecodable upload');
        if (error instanceof DecoderUnavailableError) this.logger.error({ err: error }, 'audio decoder unavailable');
        throw error;
      }),
      sha256Of(upload.path),
    ]);
    const engine = this.engines.engineFor(model);
    const route = routeOf(engine);
    const file = route.kind === 'files' ? await upstreamFile(upload, container, workspace.dir) : null;
    const budget = this.budgetOf(route);
    await budget.first();
    let held;
    try {
      held = await this.batches.open(principal, model, language, request.dialect);
    } catch (error) {
      budget.settle(false);
      throw error;
    }
    const { session } = held;
    const signal = request.signal ? AbortSignal.any([request.signal, held.signal]) : held.signal;
    try {
      let segments: TranscriptSegment[];
      if (route.kind === 'files') {
        segments = await this.forward(route.files, budget, {
          ...file!,
          durationMs: decoded.durationMs,
          language,
          prompt: request.prompt ?? null,
          signal,
        });
        request.onSegments?.(segments);
      } else {
        const { max } = route.engine.capacity();
        const reserve = route.shared ? StreamBudget.reserveOf(max) : 0;
        const parts = Math.min(max - reserve, this.config.transcriptions.maxStreams);
        const pieces = splitAtSilences(decoded.profile, { ...SPLIT_DEFAULTS, parts });
        segments = await new BatchTranscriber(route.engine, budget).run({
          sessionId: session.id,
          model,
          language,
          pcmPath: decoded.pcmPath,
          pieces,
          onPieceDone: request.onSegments,
          signal,
        });
      }
      const wrapped = route.kind === 'streams' && route.shared;
      const frames = await this.batches.complete(session.id, decoded.durationMs, !wrapped);
      return {
        sessionId: session.id,
        model,
        language,
        durationMs: decoded.durationMs,
        billedSeconds: (frames * FRAME_MS) / 1000,
        channels: 1,
        sha256,
        createdAt: session.startedAt,
        segments,
      };
    } catch (error) {
      await this.batches.abandon(session.id);
      if (signal.aborted) throw new AppError('invalid_request', 'The transcription was ended before it finished');
      throw error;
    }
  }

  /** The whole file to an engine that takes files; the budget's grant is held until it answers. */
  private async forward(
    files: FileTranscriber,
    budget: StreamBudget,
    request: FileTranscriptionRequest,
  ): Promise<TranscriptSegment[]> {
    let answer: Promise<FileTranscript>;
    try {
      answer = files.transcribe(request);
    } finally {
      budget.settle(true);
    }
    try {
      return (await answer).segments;
    } catch (error) {
      if (!(error instanceof FileTranscriptionError)) throw error;
      this.logger.warn({ reason: error.reason, detail: error.message }, 'transcription upstream failed');
      throw upstreamRefusal(error);
    } finally {
      budget.release();
    }
  }

  private budgetOf(route: Route): StreamBudget {
    const key = route.kind === 'files' ? route.files : route.engine;
    let budget = this.budgets.get(key);
    if (!budget) {
      const { queueSize, queueTimeoutMs, maxStreams } = this.config.transcriptions;
      const capacity = route.kind === 'files' ? () => route.files.capacity() : () => route.engine.capacity();
      budget = new StreamBudget(capacity, {
        queueSize,
        queueTimeoutMs,
        maxStreams,
        sharedWithLive: route.kind === 'streams' && route.shared,
      });
      this.budgets.set(key, budget);
    }
    return budget;
  }
}

/**
 * Where a model's batch work goes: whole files to an upstream (a remote engine with one), else pieces
 * on transcription streams of the engine's batch engine (kept apart from live sessions), else of the
 * engine itself (shared with live sessions, under their reserve).
 */
type Route = { kind: 'files'; files: FileTranscriber } | { kind: 'streams'; engine: SpeechEngine; shared: boolean };

function routeOf(engine: SpeechEngine): Route {
  if (engine.files) return { kind: 'files', files: engine.files };
  if (engine.batch) return { kind: 'streams', engine: engine.batch, shared: false };
  return { kind: 'streams', engine, shared: true };
}

function upstreamRefusal(error: FileTranscriptionError): AppError {
  switch (error.reason) {
    case 'timeout':
      return new AppError('upstream_timeout', 'The transcription upstream did not answer in time; retry later');
    case 'too_large':
      return new AppError('payload_too_large', 'The file is larger than the transcription upstream takes', {
        param: 'file',
      });
    default:
      return new AppError('upstream_error', 'The transcription upstream failed to transcribe the file; retry later');
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
