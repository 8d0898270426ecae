// ts-jest does not run Nest CLI plugins; this applies the swagger plugin so DTO metadata exists under Jest too.
const { before } = require('@nestjs/swagger/plugin');

module.exports = {
  name: 'nestjs-swagger-transformer',
  version: 1,
  factory: (tsCompiler) => before({ introspectComments: true, classValidatorShim: true }, tsCompiler.program),
};
