import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What compose.yaml, the Dockerfile and .dockerignore promise, read as files: the image build itself is
 * too slow for the suite (`npm run test:image` and `test:compose` build and run it), but a line edited
 * back would undo these without anyone noticing.
 */
const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** A top-level block's or a service's lines (compose.yaml is plain block YAML: indentation says it all). */
function block(text: string, header: string, indent: number): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line === `${' '.repeat(indent)}${header}:`);
  if (at < 0) throw new Error(`no ${header} in compose.yaml`);
  const end = lines.findIndex((line, i) => i > at && line.trim() !== '' && line.search(/\S/) <= indent);
  return lines
    .slice(at + 1, end < 0 ? undefined : end)
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n');
}

describe('compose.yaml', () => {
  const compose = read('compose.yaml');
  const continuum = block(compose, 'continuum', 2);
  const db = block(compose, 'db', 2);

  it("publishes the API port and WebRTC calls' UDP port only: /metrics is on an unpublished METRICS_PORT", () => {
    expect(
      block(continuum, 'ports', 4)
        .trim()
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual(["- '8080:8080'", "- '3479:3479/udp'"]);
    expect(block(continuum, 'environment', 4)).toMatch(/^ {6}WEBRTC_UDP_PORT: '3479'$/m);
    expect(block(continuum, 'environment', 4)).toMatch(/^ {6}METRICS_PORT: '9464'$/m);
    expect(compose).not.toMatch(/9464:/);
  });

  it('passes the database URL and password as secret files, in no environment', () => {
    for (const service of [continuum, db]) {
      expect(block(service, 'environment', 4)).not.toMatch(/^ {6}(DATABASE_URL|POSTGRES_PASSWORD):/m);
      expect(service).not.toContain('${POSTGRES_PASSWORD');
    }
    expect(block(continuum, 'environment', 4)).toMatch(/^ {6}DATABASE_URL_FILE: \/run\/secrets\/database_url$/m);
    expect(continuum).toMatch(/^ {4}secrets: \[database_url\]/m);
    expect(block(db, 'environment', 4)).toMatch(/^ {6}POSTGRES_PASSWORD_FILE: \/run\/secrets\/postgres_password$/m);
    expect(db).toMatch(/^ {4}secrets: \[postgres_password\]/m);
    const secrets = block(compose, 'secrets', 0);
    expect(secrets).toMatch(/^ {2}database_url:\n {4}file: /m);
    expect(secrets).toMatch(/^ {2}postgres_password:\n {4}file: /m);
  });
});

describe('the image build', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('leaves secrets out of the build context', () => {
    expect(ignored).toEqual(
      expect.arrayContaining(['.env', '.env.*', '*.pem', '*.key', 'starting-api-key.txt', 'secrets']),
    );
  });

  it("copies the service in as root's, and strips source maps and build state from dist/", () => {
    const dockerfile = read('Dockerfile');
    const copies = dockerfile.split('\n').filter((line) => line.startsWith('COPY --from=build'));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy).not.toContain('--chown');
    expect(dockerfile).toMatch(/prune-production\.sh && chmod -R go-w \/app/);
    expect(read('scripts/image/prune-production.sh')).toMatch(
      /find dist -type f \\\( -name '\*\.map' -o -name '\*\.tsbuildinfo' \\\) -delete/,
    );
  });
});
