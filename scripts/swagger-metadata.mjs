// Writes src/swagger-metadata.ts: what @nestjs/swagger's compiler plugin would add to the DTOs and
// controllers (types, descriptions from comments, class-validator limits), read from the TypeScript
// program once. The app loads it before it builds the OpenAPI document (app.setup.ts), so neither
// `nest build` nor Jest needs the plugin: Jest transpiles each file alone, without a type checker.
// `npm run build` runs this first. `--check` writes nothing and exits 1 when the committed file is not
// what the DTOs give now (the OpenAPI e2e runs it: a stale file would serve a stale document).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { PluginMetadataGenerator } = require('@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator');
const { ReadonlyVisitor } = require('@nestjs/swagger/plugin');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'src', 'swagger-metadata.ts');
const check = process.argv.includes('--check');
// The imports it writes are relative to pathToSource, wherever the file goes.
const outputDir = check ? mkdtempSync(join(tmpdir(), 'swagger-metadata-')) : join(root, 'src');
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
  outputDir,
  filename: 'swagger-metadata.ts',
  tsProgramRef: ReadonlyVisitor.createTsProgram('tsconfig.build.json'),
});
// The generator writes dynamic import()s, which a CommonJS build keeps as ESM imports: Node's ESM
// resolver then wants files with their extension, which TypeScript sources run by ts-node (the worker
// process the e2e spawns) do not have. require() resolves alike under nest build, Jest and ts-node.
const text = readFileSync(join(outputDir, 'swagger-metadata.ts'), 'utf8')
  .replace(/await import\("(\.[^"]+)"\)/g, 'require("$1")')
  .replace(/import\("(\.[^"]+)"\)/g, 'Promise.resolve(require("$1"))');
if (!check) {
  writeFileSync(file, text);
} else {
  rmSync(outputDir, { recursive: true, force: true });
  if (readFileSync(file, 'utf8') !== text) {
    console.error(
      'src/swagger-metadata.ts is not what the DTOs give now: run `npm run build` (or node scripts/swagger-metadata.mjs)',
    );
    process.exit(1);
  }
}
