import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { GateRequest } from '../domain/gate/vocabulary.js';
import {
  decisionAttribute,
  sessionIdAttribute,
  toolAttribute,
  type VisibleDecision,
} from './search-attributes.js';

/**
 * Changes to this workflow are made under a patch, because calls wait days on approvals and a
 * new worker must replay their histories: `patched(id)` is true for workflows that reach it on
 * new code and false when replaying a history recorded before the change. Once no workflow
 * started before a change is open, its patch becomes `deprecatePatch(id)`, then is removed.
 */
const patches = {
  /** The session, tool and decision as search attributes (histories before it have none). */
  searchAttributes: 'gate-search-attributes',
  /**
   * The start sets the session and tool, so the workflow does not upsert them. A call the new
   * API started but a worker before this change ran upserted them anyway: its history replays so.
   */
  attributesFromStart: 'gate-search-attributes-from-start',
} as const;

/** Publishes the call's decision for the Temporal UI, where the patch applies. */
export type ShowDecision = (decision: VisibleDecision) => void;

/**
 * The session and tool published at once (by the start itself when it carries them, which saves
 * Temporal an event and a visibility write); the decision when known.
 */
export function visibility(request: GateRequest): ShowDecision {
  if (!patched(patches.searchAttributes)) return () => undefined;
  const setByStart = workflowInfo().typedSearchAttributes.get(sessionIdAttribute) !== undefined;
  if (!(setByStart && patched(patches.attributesFromStart)))
    upsertSearchAttributes([
      { key: sessionIdAttribute, value: request.session_id },
      { key: toolAttribute, value: request.tool },
    ]);
  return (decision) => {
    upsertSearchAttributes([{ key: decisionAttribute, value: decision }]);
  };
}
