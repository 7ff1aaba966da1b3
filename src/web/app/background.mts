/** The background chooser: transparent, a colour (picker) or an image URL. */
import { h } from './dom.mjs';
import { field } from './fields.mjs';

export type BackgroundValue = { type: 'transparent' } | { type: 'color'; color: string } | { type: 'image'; image_url: string };

export interface BackgroundChooser {
  element: HTMLElement;
  value(): BackgroundValue;
  /** Paints a preview element's background the way the output's will be. */
  paint(target: HTMLElement): void;
}

export function backgroundChooser(onChange: () => void): BackgroundChooser {
  const radio = (value: string, label: string, checked = false) =>
    h('label', { class: 'choice' }, h('input', { type: 'radio', name: 'bg', value, checked, onchange: update }), label);
  const color = h('input', { type: 'color', name: 'bg_color', value: '#00b140', 'aria-label': 'Background colour', oninput: update });
  const imageUrl = h('input', { type: 'url', name: 'bg_image_url', placeholder: 'https://example.com/backdrop.jpg', oninput: update });
  const colorField = field('Colour', color);
  const imageField = field('Image URL', imageUrl, 'The server fetches it; it must be a public http(s) address.');
  const choices = h('div', { class: 'choices', role: 'radiogroup', 'aria-label': 'Background' }, radio('transparent', 'Transparent', true), radio('color', 'Colour'), radio('image', 'Image'));
  const element = h('fieldset', { class: 'background' }, h('legend', {}, 'Background'), choices, colorField, imageField);

  function selected(): string {
    return element.querySelector<HTMLInputElement>('input[name="bg"]:checked')?.value ?? 'transparent';
  }

  function showFields(): void {
    colorField.hidden = selected() !== 'color';
    imageField.hidden = selected() !== 'image';
  }

  function update(): void {
    showFields();
    onChange();
  }
  showFields();

  return {
    element,
    value() {
      const type = selected();
      if (type === 'color') return { type: 'color', color: color.value };
      if (type === 'image') return { type: 'image', image_url: imageUrl.value.trim() };
      return { type: 'transparent' };
    },
    paint(target) {
      const value = this.value();
      target.classList.toggle('checkerboard', value.type !== 'color');
      target.style.backgroundColor = value.type === 'color' ? value.color : '';
      target.style.backgroundImage = value.type === 'image' && value.image_url ? `url(${JSON.stringify(value.image_url)})` : '';
      target.style.backgroundSize = value.type === 'image' ? 'cover' : '';
    },
  };
}
