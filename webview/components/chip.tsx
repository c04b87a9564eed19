// An attachment as a chip: on a sent message, or in the composer (with its size, a button that removes it, and for
// one past the bound, Attach Anyway).
import { sizeLabel, type AttachmentView, type ChipView } from '../../src/chat/protocol';
import { t } from '../l10n';

type ChipKind = ChipView['kind'] | AttachmentView['kind'];

const CHIP_ICONS: Record<ChipKind, string> = {
  file: 'file',
  selection: 'selection',
  image: 'file-media',
  link: 'link',
  audio: 'unmute',
  folder: 'folder',
  symbol: 'symbol-class',
  problems: 'warning',
  terminal: 'terminal',
  changes: 'git-compare',
  commit: 'git-commit',
  chat: 'comment-discussion',
  url: 'globe',
};

export function Chip({
  kind,
  label,
  size,
  onRemove,
  onConfirm,
}: {
  kind: ChipKind;
  label: string;
  size?: number;
  onRemove?: () => void;
  onConfirm?: () => void;
}) {
  const shown = size !== undefined ? sizeLabel(size) : undefined;
  return (
    <span class={onConfirm ? 'chip chip-large' : 'chip'} role="listitem">
      <span class={`codicon codicon-${CHIP_ICONS[kind]}`} aria-hidden="true" />
      <span class="chip-label">{label}</span>
      {shown && <span class="chip-size">{shown}</span>}
      {onConfirm && (
        <button type="button" class="chip-confirm" title={t('This is large: it is not sent until you say so')} onClick={onConfirm}>
          {t('Attach Anyway')}
        </button>
      )}
      {onRemove && (
        <button type="button" class="icon-button" aria-label={t('Remove {0}', label)} title={t('Remove')} onClick={onRemove}>
          <span class="codicon codicon-close" aria-hidden="true" />
        </button>
      )}
    </span>
  );
}
