import { upsertSearchAttributes } from '@temporalio/workflow';
import { decisionAttribute, type VisibleDecision } from './search-attributes.js';

/** Publishes the call's decision for the Temporal UI. */
export type ShowDecision = (decision: VisibleDecision) => void;

/**
 * The decision, when known, as a search attribute. The session and tool need no upsert: the
 * start sets them (`GateWorkflowClient`), which saves Temporal an event and a visibility write.
 */
export function visibility(): ShowDecision {
  return (decision) => {
    upsertSearchAttributes([{ key: decisionAttribute, value: decision }]);
  };
}
