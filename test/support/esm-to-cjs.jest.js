// Dependencies published as ES modules only (content-disposition 3, under @fastify/static 10.1.11) load in
// node through require(esm), which Jest's module runtime does not offer before Node 24.9. Jest gets them
// compiled to CommonJS instead; node itself (the service, the image) runs them as they are.
const ts = require('typescript');

module.exports = {
  process(source, path) {
    const { outputText } = ts.transpileModule(source, {
      fileName: path,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true },
    });
    return { code: outputText };
  },
};
