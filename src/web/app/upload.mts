/** The video picker: drag and drop or a file dialog, then an upload with a real progress bar. */
import { api, errorText } from './api.mjs';
import { formatBytes, h, notice } from './dom.mjs';
import type { UploadView } from './types.mjs';

const ACCEPT = 'video/mp4,video/quicktime,video/webm,video/x-msvideo,.mp4,.mov,.webm,.avi';

export interface UploadBox {
  element: HTMLElement;
  /** The finished upload, or null while none. */
  current(): UploadView | null;
  /** while a job is being started from the upload, no other file may replace it */
  setEnabled(enabled: boolean): void;
}

export function progressBar(label: string): { element: HTMLElement; set(percent: number, text: string): void } {
  const fillBar = h('div', { class: 'bar-fill' });
  const text = h('span', { class: 'bar-text' });
  const bar = h('div', { class: 'bar', role: 'progressbar', 'aria-label': label, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 0 }, fillBar);
  return {
    element: h('div', { class: 'progress' }, bar, text),
    set(percent, caption) {
      const clamped = Math.max(0, Math.min(100, percent));
      fillBar.style.width = `${clamped}%`;
      bar.setAttribute('aria-valuenow', String(Math.round(clamped)));
      text.textContent = caption;
    },
  };
}

/**
 * Calls onFile with each chosen file and onUploaded once its upload finished (null when it failed).
 * An upload still running when `pageSignal` aborts (the user left the page) is aborted with it: it
 * went on unseen, up to the whole file, and left an upload nobody used.
 */
export function uploadBox(onFile: (file: File) => void, onUploaded: (upload: UploadView | null) => void, pageSignal?: AbortSignal): UploadBox {
  const input = h('input', { type: 'file', accept: ACCEPT, name: 'file', class: 'visually-hidden', 'data-testid': 'file-input' });
  const zone = h(
    'label',
    { class: 'dropzone', 'data-testid': 'dropzone' },
    input,
    h('strong', {}, 'Drop a video here'),
    h('span', {}, 'or click to choose one (mp4, mov, webm or avi)'),
  );
  const status = h('div', { class: 'upload-status', 'aria-live': 'polite' });
  let current: UploadView | null = null;
  let inFlight: AbortController | null = null;
  let enabled = true;
  pageSignal?.addEventListener('abort', () => inFlight?.abort(), { once: true });

  async function start(file: File): Promise<void> {
    if (!enabled) return;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    current = null;
    onFile(file);
    const bar = progressBar('Upload progress');
    status.replaceChildren(h('p', { class: 'file-name' }, `${file.name} · ${formatBytes(file.size)}`), bar.element);
    bar.set(0, 'Starting upload…');
    try {
      const upload = await api.upload(
        file,
        (sent, total) => bar.set((sent / total) * 100, `Uploading ${formatBytes(sent)} of ${formatBytes(total)} (${Math.round((sent / total) * 100)}%)`),
        controller.signal,
      );
      if (controller.signal.aborted) return;
      current = upload;
      bar.set(100, `Uploaded ${formatBytes(upload.size)}`);
      onUploaded(upload);
    } catch (error) {
      if (controller.signal.aborted) return;
      status.replaceChildren(h('p', { class: 'file-name' }, `${file.name} · ${formatBytes(file.size)}`), notice('error', `Upload failed: ${errorText(error)}`));
      onUploaded(null);
    }
  }

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) void start(file);
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const file = event.dataTransfer?.files[0];
    if (file) void start(file);
  });

  const setEnabled = (on: boolean): void => {
    enabled = on;
    input.disabled = !on;
    zone.classList.toggle('disabled', !on);
    zone.setAttribute('aria-disabled', String(!on));
  };
  return { element: h('div', { class: 'upload' }, zone, status), current: () => current, setEnabled };
}
