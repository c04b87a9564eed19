// Images pasted into or dropped on the composer are attached (sent to the host in base64, which links a saved copy
// for an agent that does not take images), unless they are of another type or too big: then the view says why. Files and folders dropped from
// the Explorer or an editor tab are attached by the host, from their URIs.
import { imageRefusal } from '../../src/chat/protocol';
import { attachImage, dropUris } from '../intents';
import { droppedUris } from './dropped';
import { readingImage } from '../imagesInFlight';
import { t } from '../l10n';

export interface ImageDrop {
  readonly onPaste: (event: ClipboardEvent) => void;
  readonly onDrop: (event: DragEvent) => void;
}

export function useImageDrop(tell: (text: string) => void): ImageDrop {
  const attachFiles = (files: Iterable<File>) => {
    for (const file of files) {
      if (!file.type.startsWith('image/')) continue;
      const refusal = imageRefusal(t, file.type, file.size);
      if (refusal) {
        tell(refusal);
        continue;
      }
      const read = readingImage();
      const reader = new FileReader();
      let token: string | undefined;
      reader.onload = () => {
        const url = String(reader.result);
        const data = url.slice(url.indexOf(',') + 1);
        token = crypto.randomUUID();
        attachImage(file.name || t('pasted image'), file.type, data, token);
      };
      // Whatever happened (read, failed, aborted, or onload threw), the read is over: a send never waits for it.
      reader.onloadend = () => read(token);
      reader.readAsDataURL(file);
    }
  };
  const onPaste = (event: ClipboardEvent) => {
    const files = [...(event.clipboardData?.files ?? [])];
    // Text pastes as usual; only a paste with an image is taken.
    if (files.some((f) => f.type.startsWith('image/'))) {
      event.preventDefault();
      attachFiles(files);
    }
  };
  const onDrop = (event: DragEvent) => {
    // Files and folders from VS Code's Explorer or an editor tab come as URIs: the host attaches them.
    const uris = droppedUris(event.dataTransfer);
    if (uris.length > 0) {
      event.preventDefault();
      dropUris(uris);
      return;
    }
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length > 0) {
      event.preventDefault();
      attachFiles(files);
    }
  };
  return { onPaste, onDrop };
}
