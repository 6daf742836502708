import { useState, type FormEvent } from 'react';
import { api, call, type Member, type Schemas } from '../api/client';
import { keys } from '../api/queries';
import { noop, useAction } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { DownloadLink } from '../common/files';
import { Avatar } from '../common/people';
import { MentionInput } from './MentionInput';
import { splitMentions, toDisplay, toWire, type Person, type Picked } from './mentions';
import { FormButtons } from '../common/FormButtons';
import { Paperclip } from 'lucide-react';
import { language, t } from '../i18n';

export type Message = Schemas['Message'];
const QUICK = ['👍', '🎉', '❤️', '👀'];

/** Message text with each `@[userId]` shown as the member's name; built as nodes, never as HTML. */
function MessageText({ text, members }: { text: string; members: Map<number, Member> }) {
  return (
    <p className="message-text">
      {splitMentions(text).map((part, i) =>
        'text' in part ? (
          part.text
        ) : (
          <span key={i} className="mention">
            @{members.get(part.userId)?.name ?? `user ${part.userId}`}
          </span>
        ),
      )}
    </p>
  );
}

/** The author's edit: the text with names in place of the tokens, mentions kept and addable. */
function EditMessage({ message, people, onSave, onCancel }: { message: Message; people: readonly Person[]; onSave: (text: string) => Promise<unknown>; onCancel: () => void }) {
  const [draft, setDraft] = useState(() => toDisplay(message.text, people));
  const [busy, setBusy] = useState(false);
  async function save(event: FormEvent) {
    event.preventDefault();
    const text = toWire(draft.text, draft.picked).trim();
    if (!text) return;
    setBusy(true);
    await onSave(text).then(onCancel, noop);
    setBusy(false);
  }
  return (
    <form className="compose edit-message" onSubmit={save}>
      <MentionInput
        label={t('task.editMessage')}
        value={draft.text}
        people={people}
        autoFocus
        onChange={(text) => setDraft((d) => ({ ...d, text }))}
        onPick={(p: Picked) => setDraft((d) => ({ ...d, picked: [...d.picked, p] }))}
      />
      <FormButtons busy={busy} onCancel={onCancel} />
    </form>
  );
}

interface Props {
  message: Message;
  taskId: number;
  members: Map<number, Member>;
  people: readonly Person[];
  meId: number | undefined;
  canReact: boolean;
  canEditText: boolean;
  canDelete: boolean;
  /** Set when the caller may change the task's cover: offers image attachments as the cover. */
  onCover?: (fileId: number) => void;
}

/** One chat message: author, text, attachments, reactions; its author edits it, its author or an editor deletes it. */
export function ChatMessage({ message: m, taskId, members, people, meId, canReact, canEditText, canDelete, onCover }: Props) {
  const [editing, setEditing] = useState(false);
  const run = useAction();
  const key = keys.taskPart(taskId, 'messages');
  const path = { params: { path: { taskId, messageId: m.id } } };
  const author = members.get(m.authorId ?? 0);

  const react = (emoji: string) => {
    const mine = m.reactions.find((r) => r.emoji === emoji)?.userIds.includes(meId ?? -1);
    void run(
      () => (mine ? call(api.DELETE('/tasks/{taskId}/messages/{messageId}/reactions/{emoji}', { params: { path: { ...path.params.path, emoji } } })) : call(api.POST('/tasks/{taskId}/messages/{messageId}/reactions', { ...path, body: { emoji } }))),
      key,
    ).catch(noop);
  };

  return (
    <li className="message" data-testid="message">
      <Avatar member={author ?? { userId: m.authorId ?? 0, name: t('task.someone') }} size={26} />
      <div className="message-body">
        <div className="message-meta">
          <strong>{author?.name ?? t('task.someone')}</strong> <time dateTime={m.createdAt}>{new Date(m.createdAt).toLocaleString(language())}</time>
          {m.editedAt && <span className="muted"> {t('task.edited')}</span>}
        </div>
        {editing ? (
          <EditMessage message={m} people={people} onSave={(text) => run(() => call(api.PATCH('/tasks/{taskId}/messages/{messageId}/text', { ...path, body: { text } })), key)} onCancel={() => setEditing(false)} />
        ) : (
          <MessageText text={m.text} members={members} />
        )}
        {m.attachments.length > 0 && (
          <ul className="attachments">
            {m.attachments.map((a) => (
              <li key={a.id}>
                {a.source === 'upload' ? (
                  <DownloadLink href={a.link} name={a.name}>
                    <Paperclip aria-hidden="true" size={14} /> {a.name}
                  </DownloadLink>
                ) : (
                  <a href={a.link} target="_blank" rel="noreferrer">
                    <Paperclip aria-hidden="true" size={14} /> {a.name}
                  </a>
                )}{' '}
                <span className="muted">{t('task.kb', { size: Math.ceil(a.size / 1024) })}</span>
                {onCover && a.source === 'upload' && a.mimeType.startsWith('image/') && (
                  <button type="button" className="ghost small" aria-label={t('task.useAsCoverFor', { name: a.name })} onClick={() => onCover(a.id)}>
                    {t('task.useAsCover')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        <div className="reactions">
          {[...new Set([...m.reactions.map((r) => r.emoji), ...(canReact ? QUICK : [])])].map((emoji) => {
            const r = m.reactions.find((x) => x.emoji === emoji);
            return (
              <button key={emoji} type="button" className={`reaction ${r ? '' : 'quick'}`} aria-pressed={!!r?.userIds.includes(meId ?? -1)} disabled={!canReact} aria-label={r ? t('task.reactCount', { emoji, count: r.count }) : t('task.react', { emoji })} onClick={() => react(emoji)}>
                {emoji} {r ? r.count : ''}
              </button>
            );
          })}
          {canEditText && !editing && (
            <button type="button" className="ghost small" aria-label={t('task.editMessage')} onClick={() => setEditing(true)}>
              {t('task.edit')}
            </button>
          )}
          {canDelete && !editing && <ConfirmButton label={t('action.delete')} name={t('task.deleteMessageName')} question={t('task.deleteMessage')} onConfirm={() => run(() => call(api.DELETE('/tasks/{taskId}/messages/{messageId}', path)), key)} />}
        </div>
      </div>
    </li>
  );
}
