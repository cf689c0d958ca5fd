import { one, type Queryable } from './pool.js';

export async function createWorkspace(db: Queryable, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'insert into workspaces (name) values ($1) returning id',
    [name],
  );
  return one(rows).id;
}

export async function workspaceExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from workspaces where id = $1', [id]);
  return rowCount === 1;
}
