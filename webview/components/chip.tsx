// An attachment as a chip: on a sent message, or in the composer (with a button that removes it).
import type { ChipView } from '../../src/chat/protocol';
import { t } from '../l10n';

const CHIP_ICONS: Record<ChipView['kind'], string> = { file: 'file', selection: 'selection', image: 'file-media', link: 'link', audio: 'unmute' };

export function Chip({ kind, label, onRemove }: { kind: ChipView['kind']; label: string; onRemove?: () => void }) {
  return (
    <span class="chip" role="listitem">
      <span class={`codicon codicon-${CHIP_ICONS[kind]}`} aria-hidden="true" />
      <span class="chip-label">{label}</span>
      {onRemove && (
        <button type="button" class="icon-button" aria-label={t('Remove {0}', label)} title={t('Remove')} onClick={onRemove}>
          <span class="codicon codicon-close" aria-hidden="true" />
        </button>
      )}
    </span>
  );
}
