import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AllExceptionsFilter } from './platform/errors/all-exceptions.filter';
import { RequestValidationPipe } from './platform/validation/validation.pipe';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseLocation, DatabaseModule } from './platform/database/database.module';
import { AdminModule } from './modules/admin';
import { AuthModule } from './modules/auth';
import { ClientSecretsModule } from './modules/client-secrets';
import { HealthModule } from './modules/health';
import { MetricsModule } from './modules/metrics';
import { ModelsModule } from './modules/models';
import { OpenApiModule } from './modules/docs';
import { ProjectsModule } from './modules/projects';
import { SessionsModule } from './modules/sessions';
import { UsageModule } from './modules/usage';
import { asyncApiDocumentProvider, SocketGatewayModule } from './gateway/socket-gateway.module';
import { EnginesModule } from './engines';

/** The whole service. Built from a validated config and a located database, so tests build it the same way. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseLocation): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database, config.databasePoolSize),
        // The scheduler registry is the app's, once: the sessions module registers its intervals there.
        ScheduleModule.forRoot(),
        MetricsModule,
        HealthModule,
        ProjectsModule,
        AuthModule,
        ModelsModule,
        OpenApiModule.forRoot(asyncApiDocumentProvider),
        SessionsModule,
        ClientSecretsModule,
        UsageModule,
        EnginesModule,
        SocketGatewayModule,
        AdminModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
      ],
    };
  }
}
