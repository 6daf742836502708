import type { ReactNode } from 'react';

/** The signed-out pages' card: sign-in, a forgotten password, a reset link. */
export function AuthCard({ children }: { children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <h1 className="brand">Workboard</h1>
        {children}
      </div>
    </main>
  );
}
