import { useRef, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, upload, type Member, type Schemas } from '../api/client';
import { keys } from '../api/queries';
import { noop, useAction } from '../common/action';
import { Avatar } from '../common/people';

type Message = Schemas['Message'];
const QUICK = ['👍', '🎉', '❤️', '👀'];
const MENTION = /@\[(\d+)\]/g;

/** Message text with `@[userId]` shown as the member's name; built as nodes, never as HTML. */
function withMentions(text: string, members: Map<number, Member>): ReactNode[] {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(MENTION)) {
    parts.push(text.slice(last, m.index));
    parts.push(
      <span key={m.index} className="mention">
        @{members.get(Number(m[1]))?.name ?? `user ${m[1]}`}
      </span>,
    );
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

export function Chat({ taskId, canEdit, members }: { taskId: number; canEdit: boolean; members: Member[] }) {
  const key = keys.taskPart(taskId, 'messages');
  const { data: messages = [] } = useQuery({ queryKey: key, queryFn: () => call(api.GET('/tasks/{taskId}/messages', { params: { path: { taskId }, query: { limit: 100 } } })) });
  const { data: me } = useQuery({ queryKey: keys.me, queryFn: () => call(api.GET('/user')) });
  const run = useAction();
  const text = useRef<HTMLTextAreaElement>(null);
  const byId = new Map(members.map((m) => [m.userId, m]));
  const ordered = [...messages].sort((a, b) => a.id - b.id);

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const files = (data.getAll('files[]') as File[]).filter((f) => f.size > 0);
    const body = String(data.get('text') ?? '').trim();
    if (!body && files.length === 0) return;
    await run(
      () => (files.length > 0 ? upload(`/tasks/${taskId}/messages`, data) : call(api.POST('/tasks/{taskId}/messages', { params: { path: { taskId } }, body: { text: body } }))),
      key,
    )
      .then(() => form.reset())
      .catch(noop);
  }

  const react = (m: Message, emoji: string) => {
    const mine = m.reactions.find((r) => r.emoji === emoji)?.userIds.includes(me?.id ?? -1);
    const path = { params: { path: { taskId, messageId: m.id, emoji } } };
    void run(
      () => (mine ? call(api.DELETE('/tasks/{taskId}/messages/{messageId}/reactions/{emoji}', path)) : call(api.POST('/tasks/{taskId}/messages/{messageId}/reactions', { params: { path: { taskId, messageId: m.id } }, body: { emoji } }))),
      key,
    ).catch(noop);
  };

  return (
    <section className="section" aria-labelledby="chat-title">
      <h3 id="chat-title">Chat</h3>
      <ol className="messages">
        {ordered.map((m) => (
          <li key={m.id} className="message">
            <Avatar member={byId.get(m.authorId ?? 0) ?? { userId: m.authorId ?? 0, name: 'Someone' }} size={26} />
            <div className="message-body">
              <div className="message-meta">
                <strong>{byId.get(m.authorId ?? 0)?.name ?? 'Someone'}</strong> <time dateTime={m.createdAt}>{new Date(m.createdAt).toLocaleString()}</time>
                {m.editedAt && <span className="muted"> (edited)</span>}
              </div>
              <p className="message-text">{withMentions(m.text, byId)}</p>
              {m.attachments.length > 0 && (
                <ul className="attachments">
                  {m.attachments.map((a) => (
                    <li key={a.id}>
                      <a href={a.link} target="_blank" rel="noreferrer">
                        📎 {a.name}
                      </a>{' '}
                      <span className="muted">({Math.ceil(a.size / 1024)} KB)</span>
                    </li>
                  ))}
                </ul>
              )}
              <div className="reactions">
                {[...new Set([...m.reactions.map((r) => r.emoji), ...(canEdit ? QUICK : [])])].map((emoji) => {
                  const r = m.reactions.find((x) => x.emoji === emoji);
                  const mine = !!r?.userIds.includes(me?.id ?? -1);
                  return (
                    <button key={emoji} type="button" className={`reaction ${r ? '' : 'quick'}`} aria-pressed={mine} disabled={!canEdit} aria-label={`React ${emoji}${r ? `, ${r.count}` : ''}`} onClick={() => react(m, emoji)}>
                      {emoji} {r ? r.count : ''}
                    </button>
                  );
                })}
              </div>
            </div>
          </li>
        ))}
        {ordered.length === 0 && <li className="muted">No messages yet.</li>}
      </ol>
      {canEdit && (
        <form className="compose" onSubmit={send}>
          <textarea ref={text} name="text" aria-label="Message" placeholder="Write a message; mention someone with the picker" rows={2} />
          <div className="row">
            <select
              aria-label="Mention a member"
              value=""
              onChange={(e) => {
                if (!text.current || !e.target.value) return;
                text.current.value += `${text.current.value && !text.current.value.endsWith(' ') ? ' ' : ''}@[${e.target.value}] `;
                text.current.focus();
              }}
            >
              <option value="">@ Mention…</option>
              {members.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name}
                </option>
              ))}
            </select>
            <label className="file-pick">
              <span className="sr-only">Attach files</span>
              <input type="file" name="files[]" multiple />
            </label>
            <button className="primary">Send</button>
          </div>
        </form>
      )}
    </section>
  );
}
