/**
 * Imported first by the benchmark entry points that open ONNX Runtime sessions in their own
 * process: its telemetry off there as in the engine's processes (src/engine/runner/engine-environment.ts
 * says what it sends and why it is off). ONNX Runtime reads the variable before its first session.
 */
process.env.ORT_DISABLE_TELEMETRY ??= '1';
