import { randomUUID } from 'node:crypto';
import type { ApiKeyCredential, CredentialSealer } from '../../broker/sealing.js';
import {
  insertModelProvider,
  type ModelProviderKind,
  type ModelProviderRow,
} from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';
import { workspaceExists } from '../../store/workspaces.js';

interface NewModelProvider {
  workspace: string;
  name: string;
  kind: ModelProviderKind;
  base_url: string;
  credential: ApiKeyCredential;
  allow_url_sources: boolean;
}

type ModelProviderCreation =
  | { kind: 'created'; provider: ModelProviderRow }
  | { kind: 'unknown_workspace' }
  | { kind: 'name_taken' };

/** Registers a provider with its key sealed under the provider's own id. */
export async function createModelProvider(
  deps: { pool: Pool; sealer: CredentialSealer },
  request: NewModelProvider,
): Promise<ModelProviderCreation> {
  if (!(await workspaceExists(deps.pool, request.workspace))) return { kind: 'unknown_workspace' };
  const id = randomUUID();
  const provider = await insertModelProvider(deps.pool, {
    id,
    workspace_id: request.workspace,
    name: request.name,
    kind: request.kind,
    base_url: request.base_url,
    sealed_credential: deps.sealer.seal(id, request.credential).toBytes(),
    allow_url_sources: request.allow_url_sources,
  });
  return provider ? { kind: 'created', provider } : { kind: 'name_taken' };
}
