import { readFileSync } from 'node:fs';
import { minVersion, satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * A fresh `npm install` prints no warning: every locked package accepts every Node version the
 * project accepts, and every install script is either allowed or refused in `allowScripts`
 * (docs/decisions.md, "## Starting and running it").
 */

interface LockedPackage {
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

const read = <T>(file: string): T =>
  JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as T;

const manifest = read<{ engines: { node: string }; allowScripts?: Record<string, boolean> }>('package.json');
const lock = read<{ packages: Record<string, LockedPackage> }>('package-lock.json');

/** `node_modules/a/node_modules/@b/c` is the package `@b/c`. */
const nameOf = (path: string): string =>
  path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

const installed = Object.entries(lock.packages).filter(([path]) => path !== '');

describe('a fresh install', () => {
  it('names the Node it needs in the README as package.json does', () => {
    const minimum = /^>=(\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
    expect(minimum, 'engines.node is a plain lower bound').toBeDefined();
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`Node.js ${minimum} or newer`);
  });

  it('holds no package that refuses the oldest Node the project supports, nor the Node running the tests', () => {
    const oldest = minVersion(manifest.engines.node)?.version ?? '';
    const demanding = installed.flatMap(([path, pkg]) => {
      const wanted = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
      const accepted = wanted === undefined || [oldest, process.version].every((v) => satisfies(v, wanted));
      return accepted ? [] : [`${nameOf(path)} (${wanted})`];
    });
    expect(oldest).not.toBe('');
    expect(demanding).toEqual([]);
  });

  it('decides on every install script in allowScripts, so none is skipped with a warning', () => {
    const allow = manifest.allowScripts ?? {};
    const undecided = installed
      .filter(([, pkg]) => pkg.hasInstallScript === true)
      .map(([path]) => nameOf(path))
      .filter((name) => !(name in allow));
    expect(undecided).toEqual([]);
  });
});
