// The review workbench: sign in with an API key, pick a project, review its items. Routes live in the
// hash (#/p/<project>/<kind>) so a reload keeps the place and the server serves one page.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, get, type Kind, type Me, session } from "./api.js";
import { ProjectList } from "./projects.js";
import { Review } from "./review.js";
import { SignIn } from "./signin.js";

type Route = { view: "projects" } | { view: "review"; project: string; kind: Kind };

function parseRoute(hash: string): Route {
  const m = /^#\/p\/([^/]+)\/(schema-mapping|concept-mapping)$/.exec(hash);
  return m
    ? { view: "review", project: decodeURIComponent(m[1]!), kind: m[2] as Kind }
    : { view: "projects" };
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(session.get() !== null);
  const [route, setRoute] = useState(parseRoute(location.hash));

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    // A key kept from earlier in this tab: check it is still valid before showing anything.
    if (session.get() === null) return;
    get<Me>("/api/v1/me")
      .then(setMe)
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) session.clear();
      })
      .finally(() => setChecking(false));
  }, []);

  const signOut = () => {
    session.clear();
    setMe(null);
    location.hash = "";
  };

  if (checking) return <p class="loading">Checking your key…</p>;
  if (!me) return <SignIn onSignedIn={setMe} />;
  return (
    <>
      <header class="bar">
        <a href="#/" class="brand">
          crossmap review
        </a>
        <span class="who">
          Signed in as <strong>{me.name ?? me.key_id}</strong>
          {me.admin ? " (admin)" : ""}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {route.view === "review" ? (
        <Review
          key={`${route.project}/${route.kind}`}
          projectId={route.project}
          kind={route.kind}
          scope={me.projects.find((p) => p.id === route.project)?.scope ?? (me.admin ? "admin" : "read")}
        />
      ) : (
        <ProjectList me={me} />
      )}
    </>
  );
}

render(<App />, document.getElementById("app")!);
