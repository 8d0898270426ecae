/**
 * One batch transcription, whichever endpoint asked: the upload (on disk) is decoded by ffmpeg, waits
 * for an engine stream in the batch queue, becomes a session, is cut at silences and recognised on as
 * many streams as live sessions can spare, then billed by its duration and closed.
 */
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { ENGINE_REGISTRY, EngineRegistry } from '../../engines';
import { DEFAULT_LANGUAGE, FRAME_MS, type SpeechEngine } from '../../session-core';
import type { ApiKeyPrincipal } from '../auth';
import { ModelCatalog } from '../models';
import { BatchSessions } from './batch-sessions';
import { BatchTranscriber, type TranscriptSegment } from './batch/batch-transcriber';
import { SPLIT_DEFAULTS, splitAtSilences } from './batch/silence-splitter';
import { StreamBudget } from './batch/stream-budget';
import { detectContainer } from './decoding/audio-format';
import { decodeAudio, DecoderUnavailableError, type RawPcm, UndecodableAudioError } from './decoding/ffmpeg-decoder';
import { transcriptionModelOf } from './transcription-models';
import type { TranscriptResult } from './transcription.types';
import type { SavedUpload } from './upload/upload-reader';

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
}

/** A scratch folder per request, removed when it is done. */
export interface Workspace {
  dir: string;
  dispose(): Promise<void>;
}

@Injectable()
export class TranscriptionsService implements OnModuleInit {
  private readonly logger = new Logger('Transcriptions');
  private readonly budgets = new Map<SpeechEngine, StreamBudget>();
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
    const budget = this.budgetOf(engine);
    await budget.first();
    let held;
    try {
      held = await this.batches.open(principal, model, language);
    } catch (error) {
      budget.settle(false);
      throw error;
    }
    const { session } = held;
    const signal = request.signal ? AbortSignal.any([request.signal, held.signal]) : held.signal;
    try {
      const { max } = engine.capacity();
      const parts = Math.min(max - StreamBudget.reserveOf(max), this.config.transcriptions.maxStreams);
      const pieces = splitAtSilences(decoded.profile, { ...SPLIT_DEFAULTS, parts });
      const segments = await new BatchTranscriber(engine, budget).run({
        sessionId: session.id,
        model,
        language,
        pcmPath: decoded.pcmPath,
        pieces,
        onPieceDone: request.onSegments,
        signal,
      });
      const frames = await this.batches.complete(session.id, decoded.durationMs);
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

  private budgetOf(engine: SpeechEngine): StreamBudget {
    let budget = this.budgets.get(engine);
    if (!budget) {
      const { queueSize, queueTimeoutMs, maxStreams } = this.config.transcriptions;
      budget = new StreamBudget(() => engine.capacity(), { queueSize, queueTimeoutMs, maxStreams });
      this.budgets.set(engine, budget);
    }
    return budget;
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
