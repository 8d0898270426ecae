import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { usdToMicros } from '../../platform/money';
import { AppConfig } from '../../config/app-config';
import { Auth, Authenticated } from '../auth';
import type { AdminPrincipal } from '../auth';
import { keyView, ledgerView, projectView } from '../projects';
import { ProjectControlsService } from '../projects';
import { ProjectsService } from '../projects';
import {
  AddCreditDto,
  CreditLimitDto,
  HistoryQueryDto,
  LimitsDto,
  NameDto,
  RotateKeyDto,
} from './dto/admin-requests.dto';

const usd = (value: string) => (value.startsWith('-') ? -usdToMicros(value.slice(1)) : usdToMicros(value));

/**
 * The console CLI's operations over HTTP, for a service that runs while it is managed (the embedded
 * database has one owner). Outside the public API and its document; API keys never open it.
 */
@ApiExcludeController()
@Authenticated({ admin: true })
@Controller('admin')
export class AdminController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly controls: ProjectControlsService,
    private readonly config: AppConfig,
  ) {}

  @Get('projects')
  async listProjects() {
    return { object: 'list', data: (await this.projects.listProjects()).map((p) => projectView(p, this.config)) };
  }

  @Post('projects')
  @HttpCode(201)
  async createProject(@Body() body: NameDto, @Auth() { actor }: AdminPrincipal) {
    const { project, key, secret } = await this.projects.createProject(body.name, undefined, actor);
    return { project: projectView(project, this.config), key: { ...keyView(key), secret } };
  }

  @Get('projects/:project_id')
  async getProject(@Param('project_id') id: string) {
    return projectView(await this.projects.getProject(id), this.config);
  }

  @Get('projects/:project_id/keys')
  async listKeys(@Param('project_id') id: string) {
    return { object: 'list', data: (await this.projects.listKeys(id)).map(keyView) };
  }

  @Post('projects/:project_id/keys')
  @HttpCode(201)
  async createKey(@Param('project_id') id: string, @Body() body: NameDto, @Auth() { actor }: AdminPrincipal) {
    const { key, secret } = await this.projects.createKey(id, body.name, actor);
    return { ...keyView(key), secret };
  }

  @Post('keys/:key_id/revoke')
  @HttpCode(200)
  async revokeKey(@Param('key_id') id: string, @Auth() { actor }: AdminPrincipal) {
    const { key, revokedSecrets } = await this.projects.revokeKey(id, actor);
    return { ...keyView(key), revoked_client_secrets: revokedSecrets };
  }

  @Post('keys/:key_id/rotate')
  @HttpCode(200)
  async rotateKey(@Param('key_id') id: string, @Body() body: RotateKeyDto, @Auth() { actor }: AdminPrincipal) {
    const { key, secret, revoked } = await this.projects.rotateKey(id, actor, body.name);
    return {
      key: { ...keyView(key), secret },
      revoked: { ...keyView(revoked.key), revoked_client_secrets: revoked.revokedSecrets },
    };
  }

  @Post('projects/:project_id/credit')
  @HttpCode(200)
  async addCredit(@Param('project_id') id: string, @Body() body: AddCreditDto, @Auth() { actor }: AdminPrincipal) {
    const entry = await this.controls.addCredit(id, usd(body.usd), actor, body.note);
    return { project: await this.getProject(id), change: ledgerView(entry) };
  }

  @Put('projects/:project_id/credit_limit')
  async setCreditLimit(
    @Param('project_id') id: string,
    @Body() body: CreditLimitDto,
    @Auth() { actor }: AdminPrincipal,
  ) {
    const entry = await this.controls.setCreditLimit(id, body.usd === null ? null : usd(body.usd), actor);
    return { project: await this.getProject(id), change: ledgerView(entry) };
  }

  @Put('projects/:project_id/limits')
  async setLimits(@Param('project_id') id: string, @Body() body: LimitsDto, @Auth() { actor }: AdminPrincipal) {
    const change = { concurrentSessions: body.concurrent_sessions, requestsPerMinute: body.requests_per_minute };
    const entry = await this.controls.setLimits(id, change, actor);
    return { project: await this.getProject(id), change: ledgerView(entry) };
  }

  @Get('projects/:project_id/history')
  async history(@Param('project_id') id: string, @Query() query: HistoryQueryDto) {
    await this.projects.getProject(id);
    return { object: 'list', data: (await this.controls.history(id, query.last)).map(ledgerView) };
  }
}
