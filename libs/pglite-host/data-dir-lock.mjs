// @ts-check
/**
 * Exclusive ownership of a PGlite data directory by one host process.
 *
 * PGlite writes no postmaster.pid and never notices a second writer, so two hosts on one directory
 * would corrupt it silently. The lock file holds the owner's pid on its first line; a lock whose
 * owner is gone (crash, SIGKILL, container restart) is taken over.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const LOCK_FILE_NAME = 'embedded-postgres.lock';

export class DataDirLockedError extends Error {
  /**
   * @param {string} lockPath
   * @param {number} ownerPid
   */
  constructor(lockPath, ownerPid) {
    super(`data directory is in use by process ${ownerPid} (lock file ${lockPath})`);
    this.name = 'DataDirLockedError';
    this.lockPath = lockPath;
    this.ownerPid = ownerPid;
  }
}

/**
 * Takes the lock or throws DataDirLockedError. `ownerScript` is the host script's file name, used
 * to tell a live owner from an unrelated process that inherited a recycled pid.
 *
 * @param {string} dataDir
 * @param {string} ownerScript
 * @returns {{ path: string, release(): void }}
 */
export function acquireDataDirLock(dataDir, ownerScript) {
  const lockPath = join(dataDir, LOCK_FILE_NAME);
  const content = `${process.pid}\n${new Date().toISOString()}\n`;
  // A fully written temp file is hard-linked into place: link() fails if the lock exists, and a
  // reader can never observe a half-written lock (which it would mistake for a stale one).
  const tempPath = join(dataDir, `.${LOCK_FILE_NAME}.${process.pid}.tmp`);
  writeFileSync(tempPath, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(tempPath, lockPath);
        return { path: lockPath, release: () => releaseLock(lockPath) };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const existing = readLock(lockPath);
      if (existing === undefined) continue; // removed between link() and read: retry
      const ownerPid = parsePid(existing);
      if (ownerPid !== undefined && isLiveOwner(ownerPid, ownerScript)) {
        throw new DataDirLockedError(lockPath, ownerPid);
      }
      // Re-read right before unlinking so that a lock another starter has just taken over is
      // left alone; it then fails on the next round as a live owner.
      if (readLock(lockPath) === existing) unlinkQuietly(lockPath);
    }
    throw new Error(`could not take the lock ${lockPath}: it kept changing`);
  } finally {
    unlinkQuietly(tempPath);
  }
}

/** @param {string} lockPath */
function releaseLock(lockPath) {
  const existing = readLock(lockPath);
  if (existing !== undefined && parsePid(existing) === process.pid) unlinkQuietly(lockPath);
}

/**
 * @param {number} pid
 * @param {string} ownerScript
 */
function isLiveOwner(pid, ownerScript) {
  // Our own pid in a lock we do not hold yet: a previous run in a recycled pid namespace (a
  // restarted container gives the host the same small pid again).
  if (pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errorCode(error) === 'EPERM'; // alive, but owned by another user
  }
  const argv = readProcessArgv(pid);
  // Without /proc (macOS, Windows) a live pid has to be trusted.
  if (argv === undefined) return true;
  return argv.some((arg) => basename(arg) === ownerScript);
}

/**
 * @param {number} pid
 * @returns {string[] | undefined}
 */
function readProcessArgv(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/**
 * @param {string} lockPath
 * @returns {string | undefined}
 */
function readLock(lockPath) {
  try {
    return readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * @param {string} content
 * @returns {number | undefined}
 */
function parsePid(content) {
  const pid = Number.parseInt(content.split('\n', 1)[0] ?? '', 10);
  return Number.isSafeInteger(pid) ? pid : undefined;
}

/** @param {string} path */
function unlinkQuietly(path) {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/**
 * @param {unknown} error
 * @returns {string | undefined}
 */
export function errorCode(error) {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
