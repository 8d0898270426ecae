import { Module } from '@nestjs/common';
import { ModelsModule } from '../models';
import { SessionsModule } from '../sessions';
import { UsageModule } from '../usage';
import { BatchSessions } from './batch-sessions';
import { DeepgramListenController } from './deepgram-listen.controller';
import { OpenAiTranscriptionsController } from './openai-transcriptions.controller';
import { TranscriptionsService } from './transcriptions.service';

/** Batch transcription: OpenAI's `POST /v1/audio/transcriptions` and Deepgram's prerecorded `POST /v1/listen`. */
@Module({
  imports: [ModelsModule, SessionsModule, UsageModule],
  controllers: [OpenAiTranscriptionsController, DeepgramListenController],
  providers: [TranscriptionsService, BatchSessions],
})
export class TranscriptionsModule {}
