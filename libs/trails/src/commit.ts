import type { GitCommitInfo } from './trail.events';

/** The spec's commit object: every field present, null where the evidence did not say. */
export interface Commit {
  sha1: string;
  message: string | null;
  author: string | null;
  branch: string | null;
  timestamp: number | null;
  url: string | null;
}

/** An artifact's commit: its own commit info, completed by its trail's when they name the same commit. */
export function commitOf(
  artifact: { git_commit?: string | null; git_commit_info?: GitCommitInfo | null },
  trail: { git_commit_info?: GitCommitInfo | null } | null,
): Commit | null {
  const own = artifact.git_commit_info ?? (artifact.git_commit ? { sha1: artifact.git_commit } : null);
  const fromTrail = trail?.git_commit_info ?? null;
  const info = own
    ? fromTrail && fromTrail.sha1 === own.sha1
      ? { ...fromTrail, ...definedFields(own) }
      : own
    : fromTrail;
  if (!info?.sha1) return null;
  return {
    sha1: info.sha1,
    message: info.message ?? null,
    author: info.author ?? null,
    branch: info.branch ?? null,
    timestamp: info.timestamp ?? null,
    url: info.url ?? null,
  };
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<T>;
}
