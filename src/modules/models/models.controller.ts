import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { ModelListDto } from './dto/model.dto';
import { ModelsService } from './models.service';

@ApiTags('Models')
@Authenticated()
@ApiStandardErrors()
@Controller('models')
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Get()
  @ApiOperation({ summary: 'List models' })
  @ApiOkResponse({ type: ModelListDto })
  listModels(): ModelListDto {
    return this.models.list();
  }
}
