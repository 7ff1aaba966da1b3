/**
 * The environment the engine's processes start with: the parent's, with glibc's malloc held to
 * fixed thresholds unless the operator set them.
 *
 * By default glibc moves its mmap threshold up to the sizes freed and trims the heap's top above
 * twice that threshold, so the engine's per-frame buffers (frames of 0.7-2.8 MB, RVM's tensors of
 * up to 7 MB) were mapped, touched and handed back to the kernel again and again: each new page a
 * fault and a zeroing. With the threshold at glibc's largest (32 MB) and the heap's top kept up to
 * 256 MB, `human` at 640x360 took about 5% less CPU a frame, `light` and `original` 3-5%, at the
 * same peak RSS (docs/engine-measurements.md, 5 December 2026). Either variable set alone is worse
 * than neither (the trim threshold alone also fixes the mmap threshold, at 128 KB: `human` took
 * 1.7 times the CPU), so an operator who sets either gets exactly what they set. C libraries other
 * than glibc ignore both.
 */
export const ENGINE_MALLOC_SETTINGS: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(32 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024),
};

/** `parent`: the environment the process would otherwise inherit (src/config computes it from the process's) */
export function engineProcessEnv(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const operatorSetMalloc = Object.keys(ENGINE_MALLOC_SETTINGS).some((name) => parent[name] !== undefined);
  return operatorSetMalloc ? { ...parent } : { ...parent, ...ENGINE_MALLOC_SETTINGS };
}

let configured: NodeJS.ProcessEnv | undefined;

/** Set once at start by the process's entry point from its configuration, as useMediaBinaries is. */
export function useEngineProcessEnv(env: NodeJS.ProcessEnv): void {
  configured = { ...env };
}

/** the configured environment; undefined where no entry point set one (a child then inherits its parent's as it is) */
export function configuredEngineProcessEnv(): NodeJS.ProcessEnv | undefined {
  return configured && { ...configured };
}
