// @ts-check
/**
 * First-run creation of a PGlite cluster.
 *
 * initdb runs in a throwaway process: PGlite's initdb leaves its process at about 800 MB RSS for
 * good, while a process that only opens an existing cluster stays near 350 MB. It writes into a
 * staging directory whose contents are then renamed into place with PG_VERSION last, because
 * PGlite takes any directory holding PG_VERSION for a finished cluster; a crash mid-initdb must
 * not leave one behind.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE_NAME } from './data-dir-lock.mjs';

const STAGING_PREFIX = '.initdb-';

/** @param {string} dataDir */
export function hasCluster(dataDir) {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/**
 * @param {string} dataDir an existing directory, locked by the caller, without a cluster
 * @param {string} hostScript the host entry point, re-run with --init-only
 * @returns {Promise<void>}
 */
export async function createCluster(dataDir, hostScript) {
  const foreign = [];
  for (const entry of readdirSync(dataDir)) {
    if (entry.startsWith(STAGING_PREFIX)) {
      removeLeftover(join(dataDir, entry));
    } else if (!entry.includes(LOCK_FILE_NAME)) {
      foreign.push(entry);
    }
  }
  if (foreign.length > 0) {
    throw new Error(
      `${dataDir} holds no PGlite cluster (no PG_VERSION) but is not empty ` +
        `(${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', ...' : ''}); ` +
        'point the data directory at an empty or missing folder',
    );
  }

  // Unique even if a killed run with our pid left its own staging folder behind.
  const staging = mkdtempSync(join(dataDir, STAGING_PREFIX));
  await runInitProcess(hostScript, staging);

  const entries = readdirSync(staging).filter((entry) => entry !== 'PG_VERSION');
  for (const entry of [...entries, 'PG_VERSION']) {
    renameSync(join(staging, entry), join(dataDir, entry));
  }
  rmSync(staging, { recursive: true, force: true });
  syncDirectory(dataDir);
}

/**
 * A staging folder of a killed run. Its initdb process may still be writing for a moment (it
 * only notices its parent's death between WASM calls), so a failed removal is left for next time:
 * staging folders are ignored by everything else.
 *
 * @param {string} path
 */
function removeLeftover(path) {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // Retried on the next first start; harmless meanwhile.
  }
}

/**
 * @param {string} hostScript
 * @param {string} staging
 * @returns {Promise<void>}
 */
function runInitProcess(hostScript, staging) {
  return new Promise((resolve, reject) => {
    // The child's stdout goes to our stderr: our stdout carries only the ready line.
    const child = spawn(process.execPath, [hostScript, '--init-only', '--watch-parent', '--data-dir', staging], {
      stdio: ['pipe', 2, 2],
      windowsHide: true,
    });
    child.stdin?.on('error', () => undefined); // EPIPE if the child dies first; the exit says why
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`initdb process failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

/** @param {string} dir */
function syncDirectory(dir) {
  // Makes the renames durable; directories cannot be opened for fsync on every platform.
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort only.
  }
}
