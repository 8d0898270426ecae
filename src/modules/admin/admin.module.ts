import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects';
import { AdminController } from './admin.controller';
import { AdminGuard } from './admin.guard';

/** The admin API (/v1/admin): deny by default, behind its own credential (ADMIN_API_KEY_SHA256). */
@Module({
  imports: [ProjectsModule],
  controllers: [AdminController],
  providers: [AdminGuard],
})
export class AdminModule {}
