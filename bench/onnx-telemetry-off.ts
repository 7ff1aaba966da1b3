/**
 * Imported first by the benchmark entry points that open ONNX Runtime sessions in their own
 * process: its telemetry off there as in the engine's processes, unless set already
 * (engine-environment.ts says what it sends and why it is off). ONNX Runtime reads the variable
 * before its first session.
 */
import { ENGINE_TELEMETRY_SETTINGS } from '../src/engine/runner/engine-environment';

for (const [name, value] of Object.entries(ENGINE_TELEMETRY_SETTINGS)) process.env[name] ??= value;
