// Workboard's service worker (issue 43): caches the app shell only — index.html, the hashed
// assets, the manifest and icons of this build — so the client opens fast and offline. It never
// touches API data or files: only GET requests under /app/ are answered, everything else goes to
// the network untouched. A new build is a new worker; it waits until the page says "reload".
const VERSION = '__VERSION__';
const SHELL = __SHELL__;
const CACHE = `workboard-shell-${VERSION}`;
const INDEX = '/app/index.html';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith('workboard-shell-') && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'SKIP_WAITING') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/app/')) return;
  if (request.mode === 'navigate') {
    // The page itself: the network first (a deploy is seen at once), this build's shell when it fails.
    event.respondWith(fetch(request).catch(() => caches.open(CACHE).then((cache) => cache.match(INDEX)).then((hit) => hit || Response.error())));
    return;
  }
  // Hashed assets, the manifest and icons: from the cache when this build has them.
  event.respondWith(caches.open(CACHE).then((cache) => cache.match(request).then((hit) => hit || fetch(request))));
});
