import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, upload, type Member } from '../api/client';
import { keys, meQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { canDeleteMessage, canEditMessage } from '../common/roles';
import { ChatMessage } from './Message';
import { MentionInput } from './MentionInput';
import { toWire, type Person, type Picked } from './mentions';
import { t } from '../i18n';

interface Props {
  taskId: number;
  canEdit: boolean;
  spaceRole: string | undefined;
  members: Map<number, Member>;
  /** Who may be mentioned: the people who can read the task. */
  people: readonly Person[];
  onCover?: (fileId: number) => void;
}

export function Chat({ taskId, canEdit, spaceRole, members, people, onCover }: Props) {
  const key = keys.taskPart(taskId, 'messages');
  const { data: messages = [] } = useQuery({ queryKey: key, queryFn: () => call(api.GET('/tasks/{taskId}/messages', { params: { path: { taskId }, query: { limit: 100 } } })) });
  const { data: me } = useQuery(meQuery);
  const run = useAction();
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<Picked[]>([]);
  const ordered = [...messages].sort((a, b) => a.id - b.id);

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const files = (data.getAll('files[]') as File[]).filter((f) => f.size > 0);
    const body = toWire(text, picked).trim();
    if (!body && files.length === 0) return;
    data.set('text', body);
    await run(() => (files.length > 0 ? upload(`/tasks/${taskId}/messages`, data) : call(api.POST('/tasks/{taskId}/messages', { params: { path: { taskId } }, body: { text: body } }))), key)
      .then(() => {
        form.reset();
        setText('');
        setPicked([]);
      })
      .catch(noop);
  }

  return (
    <section className="section" aria-labelledby="chat-title">
      <h3 id="chat-title">{t('task.chat')}</h3>
      <ol className="messages">
        {ordered.map((m) => (
          <ChatMessage
            key={m.id}
            message={m}
            taskId={taskId}
            members={members}
            people={people}
            meId={me?.id}
            canReact={canEdit}
            canEditText={canEditMessage(m, me?.id)}
            canDelete={canDeleteMessage(spaceRole, m, me?.id)}
            onCover={onCover}
          />
        ))}
        {ordered.length === 0 && <li className="muted">{t('task.noMessages')}</li>}
      </ol>
      {canEdit && (
        <form className="compose" onSubmit={send}>
          <MentionInput name="text" label={t('task.message')} placeholder={t('task.messagePlaceholder')} value={text} people={people} onChange={setText} onPick={(p) => setPicked((list) => [...list, p])} />
          <div className="row">
            <label className="file-pick">
              <span className="sr-only">{t('task.attach')}</span>
              <input type="file" name="files[]" multiple />
            </label>
            <button className="primary">{t('task.send')}</button>
          </div>
        </form>
      )}
    </section>
  );
}
