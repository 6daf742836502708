import { useQuery } from '@tanstack/react-query';
import { meQuery, spacesQuery } from '../api/queries';

export function Home() {
  const { data: me } = useQuery(meQuery);
  const { data: spaces } = useQuery(spacesQuery);
  return (
    <section className="home">
      <h1>Welcome{me ? `, ${me.name}` : ''}</h1>
      {spaces && spaces.length === 0 ? (
        <p>Create a space in the sidebar, then a project in it: its board opens here.</p>
      ) : (
        <p>Pick a project in the sidebar to open its board.</p>
      )}
    </section>
  );
}
