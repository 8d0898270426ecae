// Writes src/swagger-metadata.ts: what @nestjs/swagger's compiler plugin would add to the DTOs and
// controllers (types, descriptions from comments, class-validator limits), read from the TypeScript
// program once. The app loads it before it builds the OpenAPI document (app.setup.ts), so neither
// `nest build` nor Jest needs the plugin: Jest transpiles each file alone, without a type checker.
// `npm run build` runs this first; the OpenAPI drift test fails on a document the metadata changed.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { PluginMetadataGenerator } = require('@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator');
const { ReadonlyVisitor } = require('@nestjs/swagger/plugin');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'src', 'swagger-metadata.ts');
process.chdir(root);
// With a program of our own the generator writes the file before it returns.
new PluginMetadataGenerator().generate({
  visitors: [
    new ReadonlyVisitor({
      introspectComments: true,
      classValidatorShim: true,
      // Entities never appear in the document, and the generator cannot name an entity's interface-typed column.
      dtoFileNameSuffix: ['.dto.ts'],
      pathToSource: join(root, 'src'),
    }),
  ],
  outputDir: join(root, 'src'),
  filename: 'swagger-metadata.ts',
  tsProgramRef: ReadonlyVisitor.createTsProgram('tsconfig.build.json'),
});
// The generator writes dynamic import()s, which a CommonJS build keeps as ESM imports: Node's ESM
// resolver then wants files with their extension, which TypeScript sources run by ts-node (the worker
// process the e2e spawns) do not have. require() resolves alike under nest build, Jest and ts-node.
const text = readFileSync(file, 'utf8')
  .replace(/await import\("(\.[^"]+)"\)/g, 'require("$1")')
  .replace(/import\("(\.[^"]+)"\)/g, 'Promise.resolve(require("$1"))');
writeFileSync(file, text);
