import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { NormalizedMeterEventDto } from './dto/normalized-meter-event.dto';
import { UsageExportDto } from './dto/usage-export.dto';
import { UsageRangeQueryDto, UsageReportQueryDto } from './dto/usage-query.dto';
import { UsageListDto } from './dto/usage-report.dto';
import { UsageService } from './usage.service';

const NDJSON = 'application/x-ndjson';
const JSON_UTF8 = 'application/json; charset=utf-8';

@ApiTags('Usage')
@Authenticated()
@ApiStandardErrors()
@ApiExtraModels(NormalizedMeterEventDto, UsageExportDto)
@Controller('usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({ summary: 'Usage by UTC day or by model: sessions, frames, seconds and cost per bucket' })
  @ApiOkResponse({ type: UsageListDto })
  getUsage(@Auth() principal: ApiKeyPrincipal, @Query() query: UsageReportQueryDto): Promise<UsageListDto> {
    return this.usage.report(principal.projectId, query);
  }

  @Get('export')
  @ApiOperation({
    summary: 'Every session created or metered in the range, with the usage metered in the range',
    description: 'Streamed as it is read from the database, so that any number of sessions exports in constant memory.',
  })
  @ApiOkResponse({
    description: 'The export document',
    content: { 'application/json': { schema: { $ref: getSchemaPath(UsageExportDto) } } },
  })
  async exportUsage(@Auth() principal: ApiKeyPrincipal, @Query() query: UsageRangeQueryDto): Promise<StreamableFile> {
    return new StreamableFile(await this.usage.export(principal.projectId, query), { type: JSON_UTF8 });
  }

  @Get('normalized-meter-events')
  @ApiOperation({
    summary: 'Meter events recorded in the range, one JSON object per line',
    description: 'Ordered by the time each event was recorded; an event keeps its meter_event_id on every read.',
  })
  @ApiOkResponse({
    description: 'Newline-delimited JSON: one NormalizedMeterEventDto per line',
    content: { [NDJSON]: { schema: { $ref: getSchemaPath(NormalizedMeterEventDto) } } },
  })
  async listNormalizedMeterEvents(
    @Auth() principal: ApiKeyPrincipal,
    @Query() query: UsageRangeQueryDto,
  ): Promise<StreamableFile> {
    return new StreamableFile(await this.usage.meterEvents(principal.projectId, query), { type: NDJSON });
  }
}
