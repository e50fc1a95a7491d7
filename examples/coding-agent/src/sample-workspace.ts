import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The sample project shipped with the example: a tiny module whose test fails. */
export const SAMPLE_PROJECT_DIR = fileURLToPath(new URL("../sample-project", import.meta.url));

/**
 * Copies the sample project into a fresh directory under `parentDir`
 * (default: the system temp directory) and returns its path. The scripted
 * session works on the copy, so the shipped project always stays broken.
 * The copy is left in place afterwards, for the user to look at.
 */
export async function createSampleWorkspace(parentDir: string = tmpdir()): Promise<string> {
  const root = await mkdtemp(path.join(parentDir, "turnkit-sample-"));
  const workspace = path.join(root, "sample-project");
  await cp(SAMPLE_PROJECT_DIR, workspace, { recursive: true });
  return workspace;
}
