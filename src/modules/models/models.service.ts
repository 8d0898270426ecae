import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { microsToUsd } from '../../platform/money';
import { FRAME_MS, SAMPLE_RATE } from '../../session-core';
import { ENGINE_REGISTRY, EngineRegistry } from '../../engines';
import { ModelDto, ModelListDto } from './dto/model.dto';
import { ModelCatalog, ModelInfo } from './model-catalog';

@Injectable()
export class ModelsService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly config: AppConfig,
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
  ) {}

  list(): ModelListDto {
    return { object: 'list', data: this.catalog.models.map((m) => this.toDto(m)) };
  }

  private toDto(model: ModelInfo): ModelDto {
    const { inUse, max } = this.engines.capacityFor(model.id);
    const tokens = model.tokenPriceMicros;
    return {
      id: model.id,
      object: 'model',
      type: model.type,
      created: model.created,
      owned_by: 'continuum',
      audio: { format: 'pcm16', sample_rate: SAMPLE_RATE, frame_ms: FRAME_MS, output_encodings: ['base64', 'binary'] },
      voices: [...model.voices],
      max_session_seconds: this.config.maxSessionSeconds,
      price: {
        usd_per_minute: microsToUsd(model.priceMicrosPerMinute),
        usd_per_million_input_tokens: tokens === null ? null : microsToUsd(tokens.input),
        usd_per_million_output_tokens: tokens === null ? null : microsToUsd(tokens.output),
      },
      capacity: { streams_in_use: inUse, streams_max: max },
      languages: [...model.languages],
    };
  }
}
