import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPlaygroundAssets } from './playground-assets';

describe('findPlaygroundAssets', () => {
  let root: string;
  const built = (dir: string) => {
    mkdirSync(join(dir, 'js'), { recursive: true });
    writeFileSync(join(dir, 'js', 'app.js'), '');
  };
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'playground-assets-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds the page next to the compiled service (dist/src/modules/playground → dist/playground)', () => {
    built(join(root, 'dist', 'playground'));
    expect(findPlaygroundAssets(join(root, 'dist', 'src', 'modules', 'playground'))).toBe(
      join(root, 'dist', 'playground'),
    );
  });

  it("finds the checkout's build when running from sources, not the page's unbuilt sources", () => {
    mkdirSync(join(root, 'playground', 'src'), { recursive: true }); // sources only
    built(join(root, 'dist', 'playground'));
    expect(findPlaygroundAssets(join(root, 'src', 'modules', 'playground'))).toBe(join(root, 'dist', 'playground'));
  });

  it('answers null when nothing was built', () => {
    expect(findPlaygroundAssets(join(root, 'src', 'modules', 'playground'))).toBeNull();
  });
});
