// Library entry point: everything a program embedding crossmap may use.
export { AppError, formatProblem, type Problem } from "./errors.js";
