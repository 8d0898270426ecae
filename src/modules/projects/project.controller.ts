import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { ProjectDto } from './dto/project.dto';
import { ProjectView } from './project.view';

@ApiTags('Project')
@Authenticated()
@ApiStandardErrors()
@Controller('project')
export class ProjectController {
  constructor(private readonly view: ProjectView) {}

  @Get()
  @ApiOperation({ summary: 'Project information: balance and limits' })
  @ApiOkResponse({ type: ProjectDto })
  getProject(@Auth() principal: ApiKeyPrincipal): Promise<ProjectDto> {
    return this.view.get(principal.projectId);
  }
}
