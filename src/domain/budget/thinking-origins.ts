/** Thinking blocks and the responses that produced them, by the blocks' digests. Pure. */
import { sha256Hex } from '../ledger/digest.js';
import type { ModelInput, ThinkingBlock } from './model-input-schema.js';

/** The output tokens of a response the gate saw produce a thinking block, by the block's digest. */
export interface ThinkingOrigin {
  /** The response (its reservation): blocks of one response share its output tokens. */
  response: string;
  outputTokens: number;
}
export type ThinkingOrigins = ReadonlyMap<string, ThinkingOrigin>;

/** A signature (or a redacted block's data) names one block; the upstream verifies it. */
export function thinkingDigest(signatureOrData: string): string {
  return `sha256:${sha256Hex(signatureOrData)}`;
}

export function digestOfBlock(block: ThinkingBlock): string {
  return thinkingDigest(block.type === 'thinking' ? block.signature : block.data);
}

/** The digests of every thinking and redacted thinking block, to look their origins up. */
export function thinkingDigests(input: ModelInput): string[] {
  return input.messages.flatMap(({ content }) =>
    content.filter(isThinkingBlock).map((block) => digestOfBlock(block)),
  );
}

function isThinkingBlock(block: { type: string }): block is ThinkingBlock {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}
