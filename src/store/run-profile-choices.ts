import type { Queryable } from './pool.js';

/** One thing a profile may name, as the admin's page offers it. */
export interface Choice {
  id: string;
  label: string;
}

/** What a workspace's profiles may name: its policies, bundles and active org connections. */
export interface ProfileChoices {
  policies: Choice[];
  bundles: Choice[];
  connections: Choice[];
}

export async function profileChoices(db: Queryable, workspaceId: string): Promise<ProfileChoices> {
  const choices = async (sql: string) => (await db.query<Choice>(sql, [workspaceId])).rows;
  return {
    policies: await choices(
      `select id, name as label from policies where workspace_id = $1 order by lower(name)`,
    ),
    bundles: await choices(
      `select id, name || ' ' || version as label from capability_bundles
       where workspace_id = $1 order by lower(name), version`,
    ),
    connections: await choices(
      `select id, name as label from connections
       where workspace_id = $1 and kind = 'org' and status = 'active' order by lower(name)`,
    ),
  };
}
