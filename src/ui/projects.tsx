// The projects the signed-in key may read, each with links to its schema and concept items.
import type { Me } from "./api.js";

export function ProjectList({ me }: { me: Me }) {
  return (
    <main class="projects">
      <h1>Projects</h1>
      {me.projects.length === 0 ? (
        <p>This key may not read any project.</p>
      ) : (
        <ul>
          {me.projects.map((p) => (
            <li key={p.id}>
              <span class="project-name">{p.name}</span> <span class="scope">({p.scope})</span>{" "}
              <a href={`#/p/${encodeURIComponent(p.id)}/concept-mapping`}>Concept items</a>{" "}
              <a href={`#/p/${encodeURIComponent(p.id)}/schema-mapping`}>Schema items</a>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
