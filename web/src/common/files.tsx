import { useEffect, useState, type ImgHTMLAttributes, type MouseEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { session } from '../api/client';
import { errorText, useToast } from './toast';

/**
 * Stored files (`/files/{key}`: covers, attachments) and reports are read with the session, which
 * travels in a header (never in a URL or a cookie): a plain <img> or link would be refused, so the
 * client fetches them and shows or saves the bytes.
 */
export async function fetchFile(href: string, accept = '*/*'): Promise<Response> {
  const response = await fetch(href, { headers: { 'Service-Session': session.get() ?? '', accept } });
  if (!response.ok) throw new Error(((await response.json().catch(() => null)) as { detail?: string } | null)?.detail ?? `download failed (${response.status})`);
  return response;
}

const fileName = (disposition: string | null, fallback: string) => {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  return star ? decodeURIComponent(star) : (/filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback);
};

/** Saves the file at `href` under the name the API gives it (or `fallback`). */
export async function saveFile(href: string, fallback: string, accept?: string): Promise<void> {
  const response = await fetchFile(href, accept);
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName(response.headers.get('content-disposition'), fallback);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A link that downloads with the session; the toast says why when it cannot. */
export function DownloadLink({ href, name, accept, className, testId, children }: { href: string; name: string; accept?: string; className?: string; testId?: string; children: React.ReactNode }) {
  const toast = useToast();
  const download = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    saveFile(href, name, accept).catch((err: unknown) => toast(errorText(err), 'error'));
  };
  return (
    <a href={href} className={className} onClick={download} data-testid={testId}>
      {children}
    </a>
  );
}

/**
 * An image of the API's file store. A file's key never names other bytes, so each is fetched once
 * per session and kept (cards scrolled out and back in reuse it).
 */
export function FileImage({ link, ...img }: { link: string } & Omit<ImgHTMLAttributes<HTMLImageElement>, 'src'>) {
  const { data: blob } = useQuery({ queryKey: ['file', link], queryFn: async () => (await fetchFile(link, 'image/*')).blob(), staleTime: Infinity });
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return;
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [blob]);
  return url ? <img src={url} {...img} /> : <span className="image-placeholder" aria-hidden="true" />;
}
