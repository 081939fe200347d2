/** Listing the knowledge bases of a place: a root directory of files, or a Postgres store's. */
import { KnowledgeBase, kbCatalogOf, type KbStatus, type KnowledgeBaseOptions } from './knowledge-base.js';

/**
 * The status of every base of the place `where` names (a root directory, or `KnowledgeBaseOptions` naming a store or
 * root), sorted by name; none when the root is absent or the store never held a base.
 */
export async function listKnowledgeBases(
  where: string | Pick<KnowledgeBaseOptions, 'root' | 'dbPath' | 'store' | 'project' | 'env' | 'cwd'>,
): Promise<KbStatus[]> {
  const options = typeof where === 'string' ? { root: where } : where;
  const catalog = kbCatalogOf(options);
  let names: string[];
  try {
    names = await catalog.names();
  } finally {
    await catalog.close();
  }
  const statuses: KbStatus[] = [];
  for (const name of names) {
    const kb = new KnowledgeBase(name, { ...options, create: false });
    try {
      statuses.push(await kb.status());
    } finally {
      await kb.close();
    }
  }
  return statuses;
}
