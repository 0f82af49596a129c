// The `crossmap` command line: builds the commander program from one file per command and runs it.
import { Command, CommanderError } from "commander";
import { AppError } from "../errors.js";
import { version } from "../version.js";
import { registerCheck } from "./check.js";
import { registerKeys } from "./keys.js";
import { registerList } from "./list.js";
import { registerMap } from "./map.js";
import { registerProjects } from "./projects.js";
import { registerReport } from "./report.js";
import { registerServe } from "./serve.js";
import { registerVocab } from "./vocab.js";

export type CommandRegistrar = (program: Command) => void;

const registrars: CommandRegistrar[] = [
  registerCheck,
  registerList,
  registerMap,
  registerReport,
  registerServe,
  registerProjects,
  registerKeys,
  registerVocab,
];

export function buildProgram(): Command {
  const program = new Command("crossmap")
    .description("Map clinical records between OMOP CDM v5.4, FHIR R4, HL7 v2.5.1 and openEHR 1.0.4.")
    .version(version, "-V, --version")
    .showHelpAfterError()
    .exitOverride();
  for (const register of registrars) register(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code (0 ok, 1 some records failed, 2 usage/config error). */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
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
