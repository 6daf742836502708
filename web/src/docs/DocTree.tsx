import { NavLink, useNavigate } from 'react-router';
import { api, call } from '../api/client';
import { InlineForm } from '../common/InlineForm';
import { noop, useAction } from '../common/action';
import { docsKeys, type DocGroup, type PageNode } from './queries';
import { t } from '../i18n';
import { ChevronDown, ChevronRight } from 'lucide-react';

interface Props {
  spaceId: number;
  groups: DocGroup[];
  canWrite: boolean;
  /** Pages on the way to the open one: shown open even where the reader collapsed them. */
  openPath: ReadonlySet<number>;
}

function Node({ node, spaceId, openPath }: { node: PageNode; spaceId: number; openPath: ReadonlySet<number> }) {
  const run = useAction();
  const open = !node.collapsed || openPath.has(node.id);
  const toggle = () =>
    void run(() => call(api.PATCH('/pages/{pageId}/collapsed', { params: { path: { pageId: node.id } }, body: { collapsed: open } })), docsKeys.groups(spaceId)).catch(noop);
  return (
    <li>
      <div className="doc-node">
        {node.children.length > 0 ? (
          <button type="button" className="ghost small" aria-expanded={open} aria-label={t(open ? 'docs.collapse' : 'docs.expand', { name: node.name })} onClick={toggle}>
            {open ? <ChevronDown aria-hidden="true" size={14} /> : <ChevronRight aria-hidden="true" size={14} />}
          </button>
        ) : (
          <span className="doc-node-leaf" aria-hidden="true" />
        )}
        <NavLink to={`/spaces/${spaceId}/docs/${node.id}`}>
          {node.icon ? `${node.icon} ` : ''}
          {node.name}
        </NavLink>
      </div>
      {open && node.children.length > 0 && (
        <ul>
          {node.children.map((child) => (
            <Node key={child.id} node={child} spaceId={spaceId} openPath={openPath} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The space's documentation: its sections, each a tree of pages; editors add sections and pages. */
export function DocTree({ spaceId, groups, canWrite, openPath }: Props) {
  const run = useAction();
  const navigate = useNavigate();
  async function addPage(group: DocGroup, name: string) {
    const page = await run(() => call(api.POST('/pages', { body: { spaceId, documentationGroupId: group.id, name, content: '' } })), docsKeys.groups(spaceId));
    navigate(`/spaces/${spaceId}/docs/${page.id}`);
  }
  return (
    <nav aria-label={t('docs.treeLabel')}>
      {groups.map((group) => (
        <section key={group.id} aria-labelledby={`doc-group-${group.id}`}>
          <h2 id={`doc-group-${group.id}`}>{group.name}</h2>
          {group.pages.length === 0 && <p className="muted">{t('docs.noPages')}</p>}
          <ul>
            {group.pages.map((node) => (
              <Node key={node.id} node={node} spaceId={spaceId} openPath={openPath} />
            ))}
          </ul>
          {canWrite && <InlineForm label={t('docs.newPageIn', { section: group.name })} placeholder={t('docs.pageName')} onSubmit={(name) => addPage(group, name)} />}
        </section>
      ))}
      {groups.length === 0 && <p className="muted">{canWrite ? t('docs.addSectionHint') : t('docs.noDocs')}</p>}
      {canWrite && (
        <InlineForm
          label={t('docs.newSection')}
          placeholder={t('docs.sectionName')}
          onSubmit={(name) => run(() => call(api.POST('/spaces/{spaceId}/documentation-groups', { params: { path: { spaceId } }, body: { name } })), docsKeys.groups(spaceId))}
        />
      )}
    </nav>
  );
}
