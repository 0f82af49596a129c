// The `crossmap` command line: builds the commander program from one file per command and runs it.
import { Command, CommanderError } from "commander";
import { AppError } from "../errors.js";
import { version } from "../version.js";

export type CommandRegistrar = (program: Command) => void;

/**
 * Each command's module with the command names it registers, in help order. Modules are imported only
 * when needed: `crossmap map` then does not load the HTTP server, the stores and LMDB, which cost every
 * run ~0.1 s of start-up (measured: 0.29 -> 0.19 s CPU for a one-record map).
 */
const COMMANDS: { names: string[]; load: () => Promise<CommandRegistrar> }[] = [
  { names: ["demo"], load: async () => (await import("./demo.js")).registerDemo },
  { names: ["check"], load: async () => (await import("./check.js")).registerCheck },
  { names: ["list", "transforms"], load: async () => (await import("./list.js")).registerList },
  { names: ["map"], load: async () => (await import("./map.js")).registerMap },
  { names: ["report"], load: async () => (await import("./report.js")).registerReport },
  { names: ["validate"], load: async () => (await import("./validate.js")).registerValidate },
  { names: ["roundtrip"], load: async () => (await import("./roundtrip.js")).registerRoundtrip },
  { names: ["serve"], load: async () => (await import("./serve.js")).registerServe },
  { names: ["projects"], load: async () => (await import("./projects.js")).registerProjects },
  { names: ["keys"], load: async () => (await import("./keys.js")).registerKeys },
  { names: ["vocab"], load: async () => (await import("./vocab.js")).registerVocab },
  { names: ["db"], load: async () => (await import("./db.js")).registerDb },
  { names: ["export"], load: async () => (await import("./export.js")).registerExport },
  { names: ["import"], load: async () => (await import("./import.js")).registerImport },
  { names: ["revalidate"], load: async () => (await import("./revalidate.js")).registerRevalidate },
  { names: ["suggest"], load: async () => (await import("./suggest.js")).registerSuggest },
  { names: ["worker"], load: async () => (await import("./worker.js")).registerWorker },
  { names: ["stream", "publish"], load: async () => (await import("./stream.js")).registerStream },
  { names: ["listen"], load: async () => (await import("./listen.js")).registerListen },
  { names: ["dq"], load: async () => (await import("./dq.js")).registerDq },
];

/**
 * The program with every command, or, when `command` names one, with that one alone (help, an unknown
 * command or no command at all get every command, so that help and suggestions stay complete).
 */
export async function buildProgram(command?: string): Promise<Command> {
  const program = new Command("crossmap")
    .description("Map clinical records between OMOP CDM v5.4, FHIR R4, HL7 v2.5.1 and openEHR 1.0.4.")
    .version(version, "-V, --version")
    .showHelpAfterError()
    .exitOverride();
  const named = COMMANDS.filter((c) => command !== undefined && c.names.includes(command));
  for (const { load } of named.length > 0 ? named : COMMANDS) (await load())(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code (0 ok, 1 some records failed, 2 usage/config error). */
export async function run(argv: string[]): Promise<number> {
  // argv is [node, script, command, ...]; commander has no options of its own before the command.
  if (argv[2] === "map") (await import("./map-workers.js")).prestartMapWorkers(argv.slice(3));
  const program = await buildProgram(argv[2]);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof AppError) {
      process.stderr.write(`crossmap: ${err.describe()}\n`);
      return err.status >= 500 ? 1 : 2;
    }
    throw err;
  }
}
