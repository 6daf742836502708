import { readFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { AppError } from '../../../../platform/errors.js';

export interface ImageFacts {
  width: number;
  height: number;
  /** #rrggbb, the most frequent colour of the image. */
  dominantColor: string;
}

/**
 * Decoding allocates width × height × 4 bytes; images beyond this are refused before decoding so a
 * small, highly compressed file cannot make the server allocate gigabytes.
 */
const MAX_PIXELS = 40_000_000;
/** Samples per side: 64 × 64 points are enough to tell a cover's main colour and cost nothing. */
const GRID = 64;

const unreadable = (why: string) => new AppError('INVALID_FILE', `the cover image cannot be analysed: ${why}`);

interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
  channels: 3 | 4;
}

function decodePng(bytes: Buffer): Promise<Pixels> {
  // The streaming parser inflates off the main thread (zlib), unlike PNG.sync.read.
  return new Promise((resolve, reject) => {
    new PNG().parse(bytes, (error, png) => {
      if (error) reject(unreadable('not a valid PNG'));
      else resolve({ width: png.width, height: png.height, data: png.data, channels: 4 });
    });
  });
}

function decodeJpeg(bytes: Buffer): Pixels {
  try {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: MAX_PIXELS / 1_000_000, maxMemoryUsageInMB: 256 });
    return { width: image.width, height: image.height, data: image.data, channels: 3 };
  } catch {
    throw unreadable('not a valid JPEG');
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
 * Size and dominant colour of a stored PNG or JPEG. Runs outside any transaction: decoding takes
 * time, and a transaction must not wait on it.
 */
export async function analyzeImage(path: string, mimeType: string, size: { width: number | null; height: number | null }): Promise<ImageFacts> {
  if (mimeType !== 'image/png' && mimeType !== 'image/jpeg') throw new AppError('INVALID_FILE', 'a cover must be a PNG or JPEG image');
  if (!size.width || !size.height) throw unreadable('its size is unknown');
  if (size.width * size.height > MAX_PIXELS) throw unreadable(`it has more than ${MAX_PIXELS} pixels`);
  const bytes = await readFile(path);
  const pixels = mimeType === 'image/png' ? await decodePng(bytes) : decodeJpeg(bytes);
  return { width: pixels.width, height: pixels.height, dominantColor: dominantColor(pixels) };
}
