/**
 * What the Temporal UI can filter gate workflows by: the session, the tool, and the decision
 * once known (`pending` while an approval waits). Never an argument: search attributes are not
 * encrypted. A namespace registers them once (see docs/operations.md).
 */
import {
  defineSearchAttributeKey,
  SearchAttributeType,
} from '@temporalio/common/lib/search-attributes.js';

export const sessionIdAttribute = defineSearchAttributeKey(
  'GateSessionId',
  SearchAttributeType.KEYWORD,
);
export const toolAttribute = defineSearchAttributeKey('GateTool', SearchAttributeType.KEYWORD);
export const decisionAttribute = defineSearchAttributeKey(
  'GateDecision',
  SearchAttributeType.KEYWORD,
);

/** The decision attribute's values: a decision, or `pending` while an approval waits. */
export type VisibleDecision = 'pending' | 'allow' | 'deny';
