/**
 * Git provenance of a run: the commit and branch of the checkout the eval ran in, null outside a git checkout or
 * without git. CI checkouts are often a detached HEAD: the branch then comes from the CI's own variables
 * (`GITHUB_HEAD_REF`, `GITHUB_REF_NAME`, `CI_COMMIT_REF_NAME`) when set.
 */
import { execFile } from 'node:child_process';

export interface GitProvenance {
  git_sha: string | null;
  git_branch: string | null;
}

/** The provenance of `cwd`. Never throws. */
export async function gitProvenance(cwd: string, env: Record<string, string | undefined> = process.env): Promise<GitProvenance> {
  const sha = await git(['rev-parse', 'HEAD'], cwd);
  if (sha === null) return { git_sha: null, git_branch: null };
  let branch = await git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd);
  if (branch === 'HEAD') branch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || null;
  return { git_sha: sha, git_branch: branch };
}

function git(args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 5_000, windowsHide: true }, (error, stdout) => {
      resolve(error ? null : stdout.trim() || null);
    });
  });
}
