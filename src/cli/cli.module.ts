import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseLocation, DatabaseModule } from '../platform/database/database.module';
import { ProjectsModule } from '../modules/projects';

/** Just enough of the service for the console commands: config, database, projects and keys. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, database: DatabaseLocation): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database, config.databasePoolSize),
        ProjectsModule,
      ],
    };
  }
}
