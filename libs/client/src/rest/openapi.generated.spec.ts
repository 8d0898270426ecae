import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

describe('generated REST types', () => {
  it('match a fresh generation from the committed openapi/openapi.json', async () => {
    const script = join(__dirname, '..', '..', 'scripts', 'generate-types.mjs');
    // Rejects (exit 1, with the reason on stderr) when the committed file is stale.
    await expect(promisify(execFile)(process.execPath, [script, '--check'])).resolves.toBeDefined();
  });
});
