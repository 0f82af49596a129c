// Sign-in: an API key checked against GET /api/v1/me, then kept in sessionStorage (never in the URL).
import { useState } from "preact/hooks";
import { ApiError, call, type Me, session } from "./api.js";

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = (await call<Me>("GET", "/api/v1/me", { key: key.trim() })).body;
      session.set(key.trim());
      setKey("");
      onSignedIn(me);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? "This key is not valid. Ask an administrator for a key (crossmap keys create)."
          : `Could not sign in: ${(err as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <h1>crossmap review</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit" disabled={busy || key.trim() === ""}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
      <p class="hint">The key stays in this browser tab only and is forgotten when the tab closes.</p>
    </main>
  );
}
