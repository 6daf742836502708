import { useQuery } from '@tanstack/react-query';
import { meQuery, spacesQuery } from '../api/queries';
import { t } from '../i18n';

export function Home() {
  const { data: me } = useQuery(meQuery);
  const { data: spaces } = useQuery(spacesQuery);
  return (
    <section className="home">
      <h1>{me ? t('home.welcomeName', { name: me.name }) : t('home.welcome')}</h1>
      {spaces && spaces.length === 0 ? (
        <p>{t('home.noSpaces')}</p>
      ) : (
        <p>{t('home.pick')}</p>
      )}
    </section>
  );
}
