/**
 * The span attributes of a gate answer: what a decision may say in a trace (as in a log line or a
 * metric): its status, decision, deny source and rule. Never its reason, arguments or result.
 */
import type { Attributes } from '@opentelemetry/api';
import { digestOf } from '../domain/ledger/digest.js';

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

/**
 * The tool a call names, as a trace may carry it: a name the run froze as it is, any other name
 * (the runner's free text) only as its digest, the one the ledger keeps (`tool_digest`).
 */
export function toolAttributes(tool: string, frozen: boolean): Attributes {
  return frozen ? { 'gate.tool': tool } : { 'gate.tool_digest': digestOf(tool) };
}
