import { AppError } from '../../../../platform/errors.js';
import { loadSharp } from '../../../../platform/files.js';

export interface ImageFacts {
  width: number;
  height: number;
  /** #rrggbb, the most frequent colour of the image. */
  dominantColor: string;
}

/**
 * Images beyond this are refused before decoding, so a small, highly compressed file cannot make
 * the server spend seconds and gigabytes on it.
 */
const MAX_PIXELS = 40_000_000;
/**
 * An existing file chosen as a cover is read into memory to be decoded (it may live in a bucket):
 * no image worth showing as a cover comes near this, and an attachment past it is refused.
 */
export const MAX_COVER_BYTES = 64 * 1024 * 1024;
/** Samples per side: 64 × 64 points are enough to tell a cover's main colour and cost nothing. */
const GRID = 64;

const COVER_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif']);

const unreadable = (why: string) => new AppError('INVALID_FILE', `the cover image cannot be analysed: ${why}`);

interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
  channels: 3 | 4;
}

/**
 * The image as shown (EXIF orientation applied), reduced to at most GRID × GRID pixels by libvips
 * on its own threads: JPEG and WebP decode at a fraction of their size (shrink-on-load), so even a
 * 40 MP photo costs tens of milliseconds and never blocks the event loop. Nearest-neighbour keeps
 * real pixels of the image rather than blends, as the colour count below expects.
 */
async function thumbnail(image: Buffer): Promise<Pixels> {
  try {
    const sharp = await loadSharp();
    const { data, info } = await sharp(image, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize(GRID, GRID, { fit: 'inside', withoutEnlargement: true, kernel: 'nearest' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data, channels: 4 };
  } catch {
    throw unreadable('it cannot be decoded');
  }
}

/**
 * The most frequent colour over a downsampled grid: sampled pixels are put in 4-bit-per-channel
 * buckets (so near-identical shades count together), and the answer is the mean of the fullest
 * bucket (so a solid #ff0000 image answers exactly #ff0000). Mostly transparent pixels of a PNG do
 * not count unless nothing else is there.
 */
export function dominantColor({ width, height, data, channels }: Pixels): string {
  const buckets = new Map<number, { n: number; r: number; g: number; b: number }>();
  const countAll = (opaqueOnly: boolean) => {
    const stepX = Math.max(1, Math.floor(width / GRID));
    const stepY = Math.max(1, Math.floor(height / GRID));
    for (let y = Math.floor(stepY / 2); y < height; y += stepY) {
      for (let x = Math.floor(stepX / 2); x < width; x += stepX) {
        const i = (y * width + x) * channels;
        if (opaqueOnly && channels === 4 && data[i + 3]! < 128) continue;
        const r = data[i]!, g = data[i + 1]!, b = data[i + 2]!;
        const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
        const bucket = buckets.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
        bucket.n++;
        bucket.r += r;
        bucket.g += g;
        bucket.b += b;
        buckets.set(key, bucket);
      }
    }
  };
  countAll(true);
  if (buckets.size === 0) countAll(false);
  let best: { key: number; n: number; r: number; g: number; b: number } | null = null;
  for (const [key, bucket] of buckets) {
    // Ties go to the lower key so the same image always answers the same colour.
    if (!best || bucket.n > best.n || (bucket.n === best.n && key < best.key)) best = { key, ...bucket };
  }
  if (!best) return '#000000';
  const hex = (sum: number) => Math.round(sum / best.n).toString(16).padStart(2, '0');
  return `#${hex(best.r)}${hex(best.g)}${hex(best.b)}`;
}

/**
 * Size (as shown) and dominant colour of a stored image, measured from the file whatever a files
 * row says. Runs outside any transaction: decoding takes time, and a transaction must not wait on it.
 */
export async function analyzeImage(load: () => Promise<Buffer>, mimeType: string): Promise<ImageFacts> {
  if (!COVER_TYPES.has(mimeType)) throw new AppError('INVALID_FILE', 'a cover must be a PNG, JPEG, WebP, GIF or AVIF image');
  const image = await load();
  const sharp = await loadSharp();
  const meta = await sharp(image).metadata().catch(() => null);
  if (!meta?.width || !meta.height) throw unreadable('its size is unknown');
  if (meta.width * meta.height > MAX_PIXELS) throw unreadable(`it has more than ${MAX_PIXELS} pixels`);
  const pixels = await thumbnail(image);
  return { width: meta.autoOrient.width, height: meta.autoOrient.height, dominantColor: dominantColor(pixels) };
}
