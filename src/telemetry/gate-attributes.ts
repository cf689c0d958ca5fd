/**
 * The span attributes of a gate answer: what a decision may say in a trace (as in a log line or a
 * metric): its status, decision, deny source and rule. Never its reason, arguments or result.
 */
import type { Attributes } from '@opentelemetry/api';

interface AnswerFields {
  status?: unknown;
  decision?: unknown;
  source?: unknown;
  rule_id?: unknown;
}

const fields = {
  status: 'gate.status',
  decision: 'gate.decision',
  source: 'gate.source',
  rule_id: 'gate.rule_id',
} as const;

export function answerAttributes(answer: AnswerFields): Attributes {
  const attributes: Attributes = {};
  for (const [field, name] of Object.entries(fields)) {
    const value = answer[field as keyof AnswerFields];
    if (typeof value === 'string' && value !== '') attributes[name] = value;
  }
  return attributes;
}
