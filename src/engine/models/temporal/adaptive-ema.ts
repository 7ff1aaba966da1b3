/**
 * Motion-adaptive exponential smoothing of a probability map. Where the new value is close to the
 * running one (noise, flicker) it moves slowly; where it differs a lot (real motion) it follows at
 * once, so moving edges do not lag.
 */
export class AdaptiveEma {
  private state?: Float32Array;

  /**
   * @param minWeight weight of the new frame where nothing changed (0..1)
   * @param fullChange difference at which the new frame is taken as it is
   */
  constructor(
    private readonly minWeight: number,
    private readonly fullChange: number,
  ) {}

  /** Blends `current` into the running state in place and returns the state. */
  update(current: Float32Array): Float32Array {
    const state = this.state;
    if (!state || state.length !== current.length) {
      this.state = Float32Array.from(current);
      return this.state;
    }
    const { minWeight } = this;
    const gain = (1 - minWeight) / this.fullChange;
    for (let i = 0; i < state.length; i++) {
      const diff = current[i] - state[i];
      const magnitude = diff < 0 ? -diff : diff;
      const weight = magnitude >= this.fullChange ? 1 : minWeight + gain * magnitude;
      state[i] += weight * diff;
    }
    return state;
  }

  reset(): void {
    this.state = undefined;
  }
}
