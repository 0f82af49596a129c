// Whether `crossmap map` reads ER7 when no --format is given; apart from the HL7 v2 command so that
// deciding costs no loading of it.

/**
 * Without --format, ER7 is read when the source standard is an HL7 v2 one (`hl7v2_2.5.1`, or a custom
 * crossmap's `hl7v2_*`) or every input is named *.hl7 / *.er7 (or *.hl7.gz / *.er7.gz).
 */
export function defaultsToEr7(sourceStandard: string, files: readonly string[]): boolean {
  if (/^hl7v2(_|$)/.test(sourceStandard)) return true;
  return files.length > 0 && files.every((f) => /\.(hl7|er7)(\.gz)?$/i.test(f));
}
