// Test harness: PGlite (PostgreSQL in WebAssembly) served over the wire protocol on a loopback port 0, so
// the node-postgres client (COPY FROM STDIN included) is tested against real PostgreSQL with no server installed.
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface PgliteServer {
  /** postgresql://postgres@127.0.0.1:PORT/postgres */
  url: string;
  db: PGlite;
  stop(): Promise<void>;
}

export async function startPgliteServer(dataDir?: string): Promise<PgliteServer> {
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 4 });
  await server.start();
  return {
    url: `postgresql://postgres@${server.getServerConn()}/postgres`,
    db,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
