/**
 * The environment the engine's processes start with: the parent's, with ONNX Runtime's telemetry
 * off and glibc's malloc held to fixed thresholds, each unless the operator set it.
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

/**
 * onnxruntime-node's Linux build (1.29 on) sends telemetry to Microsoft from every process that
 * creates a session: it keeps a device id and an event store under $HOME/.cache/Microsoft, writes
 * $TMPDIR/mat-debug-<pid>.log and looks up and posts to mobile.events.data.microsoft.com. A
 * self-hosted service's workers must not call out on their own, so it is off unless the operator
 * set `ORT_DISABLE_TELEMETRY` (ONNX Runtime reads it once, before its first session). ONNX Runtime
 * holds its telemetry back by itself where a CI variable (CI, GITHUB_ACTIONS and others) is set,
 * which is why no CI run showed it.
 */
export const ENGINE_TELEMETRY_SETTINGS: Readonly<Record<string, string>> = { ORT_DISABLE_TELEMETRY: '1' };

/** what of the parent's environment the engine's processes see: the system's own, Node's, and the runtimes' knobs */
const INHERITED_NAMES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP', 'LD_LIBRARY_PATH', 'SYSTEMROOT', 'SystemRoot']);
const INHERITED_PREFIXES = ['LC_', 'NODE_', 'ORT_', 'MALLOC_', 'OMP_', 'MKL_', 'OPENBLAS_', 'GOMP_', 'KMP_'];

/** whether the engine's processes see `name` of the parent's environment */
export function engineInherits(name: string): boolean {
  return INHERITED_NAMES.has(name) || INHERITED_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * `parent`: the environment the process would otherwise inherit (src/config computes it from the
 * process's). Only what engineInherits names goes on: ffmpeg parses untrusted video, and with the
 * whole environment an exploit there read DATABASE_URL's password, ADMIN_TOKEN, S3_SECRET_ACCESS_KEY
 * and WORKER_API_KEY from /proc/<pid>/environ. The engine reads no variable of its own (its
 * settings come with each request).
 */
export function engineProcessEnv(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const operatorSet = (settings: Readonly<Record<string, string>>) => Object.keys(settings).some((name) => parent[name] !== undefined);
  return {
    ...Object.fromEntries(Object.entries(parent).filter(([name]) => engineInherits(name))),
    ...(operatorSet(ENGINE_TELEMETRY_SETTINGS) ? {} : ENGINE_TELEMETRY_SETTINGS),
    ...(operatorSet(ENGINE_MALLOC_SETTINGS) ? {} : ENGINE_MALLOC_SETTINGS),
  };
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
