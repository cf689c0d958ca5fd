/**
 * Input tokens of one image, from the provider's documentation (Images and vision: "tokens =
 * (width px * height px) / 750"; larger images are scaled down first, which only lowers the
 * count; the API rejects images larger than 8000 x 8000 px). Pure: no I/O.
 */
import { imageSize } from 'image-size';

export const pixelsPerToken = 750;
/** The largest image the API accepts, 8000 x 8000 px, costs at most this much. */
export const largestImageTokens = Math.ceil((8000 * 8000) / pixelsPerToken);

type ImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

/** Width and height read from the image's own header, or undefined when they cannot be read. */
function imageDimensions(base64: string): { width: number; height: number } | undefined {
  try {
    const { width, height } = imageSize(Buffer.from(base64, 'base64'));
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An upper bound on the tokens of an image: the documented formula on its own pixels when its
 * bytes are here, else (a URL, a file id, a header that does not read) the largest image the API
 * accepts.
 */
export function imageTokenBound(source: ImageSource): number {
  const size = source.type === 'base64' ? imageDimensions(source.data) : undefined;
  if (!size) return largestImageTokens;
  return Math.min(largestImageTokens, Math.ceil((size.width * size.height) / pixelsPerToken));
}
