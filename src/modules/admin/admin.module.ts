import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects';
import { AdminController } from './admin.controller';

/** The admin API (/v1/admin): behind its own credential (ADMIN_API_KEY_SHA256), which the auth guard checks. */
@Module({
  imports: [ProjectsModule],
  controllers: [AdminController],
})
export class AdminModule {}
