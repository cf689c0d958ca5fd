/**
 * Token counts of texts as OpenAI's models read them, from their own tokenizers (o200k_base,
 * cl100k_base), bounded in the work they take. Pure: no I/O.
 *
 * A tokenizer splits a text into pieces by a pattern, then merges each piece's bytes. The count
 * here runs the same pattern and the same merges piece by piece, so it is the tokenizer's own
 * count. Merging a piece costs time quadratic in its length (js-tiktoken), so three things keep
 * a hostile text cheap: a piece longer than `maxMergedPiece` characters counts its UTF-8 bytes;
 * merging stops once a request has spent `mergeBudget` (the sum of its merged pieces' squared
 * lengths, about a fifth of a second), after which pieces count their bytes; and pieces already
 * merged are remembered (real texts repeat their words), costing nothing more. Bytes are a bound
 * for any byte-level tokenizer (every token covers at least one byte), so all three only count
 * more; so does a model whose tokenizer the gate does not know.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';

type EncodingName = 'o200k_base' | 'cl100k_base';

/** Longer pieces count their bytes: the merges would cost quadratic time. */
export const maxMergedPiece = 32;
/** The merging one request may cost: the sum of the squared lengths of the pieces merged. */
const mergeBudget = 1_000_000;
/** Pieces remembered with their counts, per tokenizer; forgotten all at once when full. */
const rememberedPieces = 100_000;

/**
 * The tokenizer of a model, by its name as OpenAI documents it (tiktoken's own table): o200k_base
 * for GPT-4o, GPT-4.1, GPT-4.5, GPT-5 and the o-series, cl100k_base for GPT-4 and GPT-3.5. A
 * fine-tune (`ft:<base>:…`) reads as its base. Any other name: none (bytes are counted).
 */
export function encodingOfModel(model: string): EncodingName | undefined {
  const base = model.startsWith('ft:') ? (model.split(':')[1] ?? '') : model;
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)([-.]|$)/.test(base))
    return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5-turbo|gpt-35-turbo)([-.]|$)/.test(base)) return 'cl100k_base';
  return undefined;
}

const ranks = { o200k_base: o200k, cl100k_base: cl100k } as const;
interface Encoding {
  tokenizer: Tiktoken;
  pieces: RegExp;
  counted: Map<string, number>;
}
const loaded = new Map<EncodingName, Encoding>();

function encoding(name: EncodingName): Encoding {
  let found = loaded.get(name);
  if (!found) {
    found = {
      tokenizer: new Tiktoken(ranks[name]),
      pieces: new RegExp(ranks[name].pat_str, 'gu'),
      counted: new Map(),
    };
    loaded.set(name, found);
  }
  return found;
}

/** Counts the texts of one request, within one budget of merging work. */
export class TextTokenCounter {
  #budget = mergeBudget;

  constructor(readonly encodingName: EncodingName | undefined) {}

  count(text: string): number {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.encodingName === undefined) return bytes;
    const { tokenizer, pieces, counted } = encoding(this.encodingName);
    let tokens = 0;
    for (const match of text.matchAll(pieces)) {
      const piece = match[0];
      const known = counted.get(piece);
      if (known !== undefined) {
        tokens += known;
        continue;
      }
      const work = piece.length * piece.length;
      if (piece.length > maxMergedPiece || work > this.#budget) {
        tokens += Buffer.byteLength(piece, 'utf8');
        continue;
      }
      this.#budget -= work;
      // Special-token names in a text are text: nothing is allowed, nothing refused.
      const merged = tokenizer.encode(piece, [], []).length;
      if (counted.size >= rememberedPieces) counted.clear();
      counted.set(piece, merged);
      tokens += merged;
    }
    return Math.min(tokens, bytes);
  }
}
