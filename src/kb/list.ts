/** Listing the knowledge bases under a root directory. */
import { KnowledgeBase, listBaseNames } from './knowledge-base.js';
import type { KbStatus } from './knowledge-base.js';

/** The status of every base under `root` (directories holding a kb.sqlite), sorted by name; none when root is absent. */
export async function listKnowledgeBases(root: string): Promise<KbStatus[]> {
  const statuses: KbStatus[] = [];
  for (const name of listBaseNames(root)) {
    const kb = new KnowledgeBase(name, { root, create: false });
    try {
      statuses.push(await kb.status());
    } finally {
      kb.close();
    }
  }
  return statuses;
}
