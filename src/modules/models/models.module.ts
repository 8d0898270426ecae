import { Module } from '@nestjs/common';
import { ModelCatalog } from './model-catalog';
import { ModelsController } from './models.controller';
import { ModelsService } from './models.service';

@Module({
  controllers: [ModelsController],
  providers: [ModelCatalog, ModelsService],
  exports: [ModelCatalog],
})
export class ModelsModule {}
