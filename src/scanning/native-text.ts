/**
 * The native/text addon (C, built by `npm ci` with node-gyp, no library needed): the structure
 * pass (structure.ts) and the word-level rule prefilter (rules/word-prefilter.ts). Loaded once
 * per thread; WARDEN_NATIVE_TEXT=0 keeps it unloaded and every caller uses its TypeScript path.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface NativeText {
  structure(text: string, out: Int32Array): number;
  setLetters(table: Uint8Array): void;
  wordsCompile(
    entries: string,
    isPrefix: Uint8Array,
    entryStart: Uint32Array,
    entryPositions: Uint32Array,
    posFlags: Uint8Array,
    posParent: Int32Array,
    anyStart: Uint32Array,
    anyChildren: Uint32Array,
    formStart: Uint32Array,
    formIds: Uint32Array,
    forms: number,
  ): object;
  wordsScan(matcher: object, bytes: Buffer, out: Uint32Array): number;
}

const NATIVE_PATH = fileURLToPath(new URL('../../../native/text/build/Release/warden_text.node', import.meta.url));
let nativeError: string | null = null;
const native: NativeText | null = ((): NativeText | null => {
  if (process.env.WARDEN_NATIVE_TEXT === '0') {
    nativeError = 'turned off (WARDEN_NATIVE_TEXT=0)';
    return null;
  }
  try {
    return createRequire(import.meta.url)(NATIVE_PATH) as NativeText;
  } catch (err) {
    nativeError = existsSync(NATIVE_PATH) ? `addon failed to load: ${(err as Error).message}` : 'addon not built (npm ci builds it with node-gyp)';
    return null;
  }
})();

/** The addon, or null with nativeTextUnavailableReason() saying why. */
export function nativeText(): NativeText | null {
  return native;
}

export function nativeTextUnavailableReason(): string | null {
  return nativeError;
}
