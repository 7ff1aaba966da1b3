/** Labelled form controls. */
import { Child, h } from './dom.mjs';

export function field(label: string, control: HTMLElement, hint?: Child): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('small', { class: 'hint' }, hint) : null);
}

export function select(name: string, options: Array<[value: string, label: string]>, selected?: string): HTMLSelectElement {
  return h('select', { name }, ...options.map(([value, label]) => h('option', { value, selected: value === selected }, label)));
}

export function numberInput(name: string, value: number | '', attrs: { min?: number; max?: number; step?: number; placeholder?: string } = {}): HTMLInputElement {
  return h('input', { type: 'number', name, value, inputmode: 'decimal', ...attrs });
}

/** A number from an input, or undefined when empty or not a number. */
export function numberOf(input: HTMLInputElement): number | undefined {
  if (input.value.trim() === '') return undefined;
  const value = Number(input.value);
  return Number.isFinite(value) ? value : undefined;
}
