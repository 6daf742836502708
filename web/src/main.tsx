import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { ApiError } from './api/client';
import { App } from './shell/App';
import { ToastProvider } from './common/toast';
import { UpdatePrompt } from './shell/UpdatePrompt';
import './styles.css';
import './shell/responsive.css';
import './shell/theme.css';
import { watchTheme } from './common/theme';

watchTheme();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Live events keep the caches current; a refetch on every focus would only repeat them.
      staleTime: 60_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/app">
        <ToastProvider>
          <App />
          <UpdatePrompt />
        </ToastProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
