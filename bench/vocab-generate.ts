// Generates an Athena-shaped vocabulary (TAB-separated, YYYYMMDD dates, unquoted) of any size for the
// vocabulary benchmark: realistic id ranges (custom ids >= 2,000,000,000 included), per-vocabulary code
// shapes, standard/non-standard mixes, paired relationships ("Maps to"/"Mapped from", "Is a"/"Subsumes")
// rows in scrambled order, as in a real download, and a CONCEPT_SYNONYM.csv.
// Usage: npx tsx bench/vocab-generate.ts [--concepts 5000000] [--relationships 40000000] [--out DIR]
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

interface VocabShape {
  id: string;
  share: number;
  standard: number;
  code: (i: number) => string;
  domain: string;
  cls: string;
}

const VOCABS: VocabShape[] = [
  {
    id: "SNOMED",
    share: 0.3,
    standard: 0.85,
    code: (i) => String(100000 + i * 7) + "00" + (i % 10),
    domain: "Condition",
    cls: "Clinical Finding",
  },
  {
    id: "RxNorm",
    share: 0.15,
    standard: 0.9,
    code: (i) => String(1000 + i * 3),
    domain: "Drug",
    cls: "Clinical Drug",
  },
  {
    id: "NDC",
    share: 0.15,
    standard: 0,
    code: (i) => String(10000000000 + i * 11).padStart(11, "0"),
    domain: "Drug",
    cls: "11-digit NDC",
  },
  {
    id: "LOINC",
    share: 0.1,
    standard: 0.95,
    code: (i) => `${10000 + i}-${i % 10}`,
    domain: "Measurement",
    cls: "Lab Test",
  },
  { id: "ICD10CM", share: 0.1, standard: 0, code: icd10, domain: "Condition", cls: "5-char billing code" },
  {
    id: "ICD9CM",
    share: 0.05,
    standard: 0,
    code: (i) => `${String(i % 1000).padStart(3, "0")}.${Math.floor(i / 1000)}`,
    domain: "Condition",
    cls: "5-dig billing code",
  },
  {
    id: "CPT4",
    share: 0.05,
    standard: 0.8,
    code: (i) => String(10000 + i).padStart(5, "0"),
    domain: "Procedure",
    cls: "CPT4",
  },
  {
    id: "HCPCS",
    share: 0.05,
    standard: 0.7,
    code: (i) => String.fromCharCode(65 + (i % 26)) + String(Math.floor(i / 26)).padStart(4, "0"),
    domain: "Procedure",
    cls: "HCPCS",
  },
  { id: "UCUM", share: 0.05, standard: 1, code: (i) => `u${i}/L`, domain: "Unit", cls: "Unit" },
];

function icd10(i: number): string {
  const letter = String.fromCharCode(65 + (i % 26));
  const n = Math.floor(i / 26);
  return `${letter}${String(n % 100).padStart(2, "0")}.${Math.floor(n / 100)}`;
}

// Concept names are built for the concept search as much as for the build: real clinical words drawn with
// a long-tailed (Zipf-like) frequency, strengths and units in drug names, some accented words, and a rare
// token in one name of ten, so the search dictionary has a realistic ~1M distinct tokens at full size.
const COMMON = [
  "of",
  "and",
  "with",
  "left",
  "right",
  "acute",
  "chronic",
  "disorder",
  "finding",
  "structure",
  "procedure",
  "upper",
  "lower",
  "type",
  "syndrome",
  "disease",
  "injury",
  "fracture",
  "pain",
  "history",
  "tablet",
  "oral",
  "injection",
  "solution",
  "serum",
  "plasma",
  "blood",
  "urine",
  "level",
  "measurement",
  "mass",
  "volume",
  "diabetes",
  "mellitus",
  "hypertension",
  "essential",
  "heart",
  "failure",
  "kidney",
  "renal",
  "liver",
  "lung",
  "infection",
  "bacterial",
  "viral",
  "neoplasm",
  "malignant",
  "benign",
  "primary",
  "secondary",
  "congenital",
  "complication",
  "without",
  "due",
  "to",
  "in",
  "by",
  "on",
  "unspecified",
  "other",
  "specified",
  "site",
  "bilateral",
  "extended",
  "release",
  "capsule",
  "cream",
  "topical",
  "hemoglobin",
  "glucose",
  "sodium",
  "potassium",
  "creatinine",
  "cholesterol",
  "asthma",
  "pneumonia",
  "arthritis",
  "rheumatoid",
  "migraine",
  "anemia",
  "obesity",
  "depression",
  "anxiety",
  "paroxetine",
  "sertraline",
  "metformin",
  "insulin",
  "lisinopril",
  "amoxicillin",
  "ibuprofen",
  "acetaminophen",
  "Sjögren",
  "Ménière",
  "Guillain-Barré",
  "café-au-lait",
  "Crohn",
  "Parkinson",
  "Alzheimer",
];
const SYLLABLES = [
  "ba",
  "ce",
  "di",
  "fo",
  "gu",
  "ha",
  "ki",
  "lo",
  "mu",
  "ne",
  "pi",
  "ra",
  "so",
  "ti",
  "vu",
  "xe",
  "zo",
  "tri",
  "pha",
  "chlo",
];
/** A pronounceable word for number `n`: the long tail of the vocabulary. */
function word(n: number): string {
  let s = "";
  do {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return s;
}
const STRENGTHS = ["0.5", "1", "2.5", "5", "10", "20", "25", "40", "50", "100", "200", "250", "500", "1000"];
const FORMS = [
  "Oral Tablet",
  "Oral Capsule",
  "Injectable Solution",
  "Topical Cream",
  "Extended Release Oral Tablet",
];
const SUFFIX: Record<string, (r: () => number) => string> = {
  Drug: (r) =>
    ` ${STRENGTHS[Math.floor(r() * STRENGTHS.length)]} MG ${FORMS[Math.floor(r() * FORMS.length)]}`,
  Measurement: (r) => (r() < 0.5 ? " [Mass/volume] in Serum or Plasma" : " [Moles/volume] in Urine"),
  Condition: (r) => (r() < 0.2 ? ", unspecified" : ""),
  Procedure: () => "",
  Unit: () => "",
};
/** A word: one of the ~100 common ones (skewed), or of a tail of 62,000 (Zipf-like, by a cube). */
const tailWord = (r: () => number) => {
  const u = r();
  return u < 0.6
    ? COMMON[Math.floor(u * u * COMMON.length * 1.6) % COMMON.length]!
    : word(Math.floor(62_000 * r() ** 3));
};

/** A concept name of 2-6 words, the vocabulary's suffix, and in one name of ten a rare token. */
function conceptName(r: () => number, domain: string): string {
  const n = 2 + Math.floor(r() * r() * 5);
  const words: string[] = [];
  for (let k = 0; k < n; k++) words.push(tailWord(r));
  if (r() < 0.1) words.push(word(100_000 + Math.floor(r() * 1_000_000)));
  let name = words.join(" ");
  name = name.charAt(0).toUpperCase() + name.slice(1);
  return name + (SUFFIX[domain]?.(r) ?? "");
}

/** xorshift32: fast, deterministic, good enough to scramble. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

class LineWriter {
  private parts: string[] = [];
  private size = 0;
  private readonly fd: number;
  constructor(path: string) {
    this.fd = openSync(path, "w");
  }
  line(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size > 1 << 20) this.flush();
  }
  flush(): void {
    if (this.parts.length > 0) writeSync(this.fd, `${this.parts.join("\n")}\n`);
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

export interface GenerateOptions {
  concepts: number;
  relationships: number;
  out: string;
  seed?: number;
}

export function generateAthena(o: GenerateOptions): void {
  mkdirSync(o.out, { recursive: true });
  const rand = rng(o.seed ?? 42);
  const n = o.concepts;
  // Ids rise with gaps like Athena's; the last 0.1% are custom concepts in the 2,000,000,000+ block.
  const ids = new Uint32Array(n);
  const vocabOf = new Uint8Array(n);
  const standard = new Uint8Array(n);
  const custom = Math.max(1, Math.floor(n / 1000));
  let id = 1_000_000;
  for (let i = 0; i < n; i++) {
    id += 1 + Math.floor(rand() * 8);
    ids[i] = i >= n - custom ? 2_000_000_001 + (i - (n - custom)) : id;
  }
  const starts: number[] = [];
  let acc = 0;
  for (const v of VOCABS) {
    starts.push(Math.floor(acc * n));
    acc += v.share;
  }
  const counters = new Array<number>(VOCABS.length).fill(0);
  const names = rng((o.seed ?? 42) + 1);
  const standardIdx: number[][] = VOCABS.map(() => []);
  // Vocabulary blocks by index, so each vocabulary's codes are unique by construction.
  for (let i = 0; i < n; i++) {
    let v = 0;
    while (v + 1 < VOCABS.length && i >= starts[v + 1]!) v++;
    vocabOf[i] = v;
    standard[i] = rand() < VOCABS[v]!.standard ? 1 : 0;
    if (standard[i]) standardIdx[v]!.push(i);
  }
  const anyStandard = standardIdx.flat();

  // Scrambled row order: a multiplicative walk over the indexes (step coprime with n).
  let step = Math.floor(n * 0.618) | 1;
  while (gcd(step, n) !== 1) step += 2;

  const concepts = new LineWriter(join(o.out, "CONCEPT.csv"));
  concepts.line(
    "concept_id\tconcept_name\tdomain_id\tvocabulary_id\tconcept_class_id\tstandard_concept\tconcept_code\tvalid_start_date\tvalid_end_date\tinvalid_reason",
  );
  for (let k = 0, i = 0; k < n; k++, i = (i + step) % n) {
    const v = VOCABS[vocabOf[i]!]!;
    const local = i - starts[vocabOf[i]!]!;
    counters[vocabOf[i]!]!++;
    const name =
      i % 5000 === 0
        ? `"${tailWord(names)}" ${conceptName(names, v.domain)}`
        : i % 7919 === 0
          ? "NA"
          : conceptName(names, v.domain);
    const invalid = rand() < 0.03 ? "D" : "";
    concepts.line(
      `${ids[i]}\t${name}\t${v.domain}\t${v.id}\t${v.cls}\t${standard[i] && !invalid ? "S" : ""}\t${v.code(local)}\t19700101\t${invalid ? "20200131" : "20991231"}\t${invalid}`,
    );
  }
  concepts.close();

  // About half the concepts have a synonym (a tenth of those a second one), as Athena's English ones.
  const synonyms = new LineWriter(join(o.out, "CONCEPT_SYNONYM.csv"));
  synonyms.line("concept_id\tconcept_synonym_name\tlanguage_concept_id");
  for (let k = 0, i = 0; k < n; k++, i = (i + step) % n) {
    const u = names();
    if (u >= 0.5) continue;
    const domain = VOCABS[vocabOf[i]!]!.domain;
    synonyms.line(`${ids[i]}\t${conceptName(names, domain)}\t4180186`);
    if (u < 0.05) synonyms.line(`${ids[i]}\t${conceptName(names, domain)}\t4180186`);
  }
  synonyms.close();

  const rels = new LineWriter(join(o.out, "CONCEPT_RELATIONSHIP.csv"));
  rels.line("concept_id_1\tconcept_id_2\trelationship_id\tvalid_start_date\tvalid_end_date\tinvalid_reason");
  const pairs: [string, string][] = [
    ["Is a", "Subsumes"],
    ["Has ingredient", "Ingredient of"],
    ["Has finding site", "Finding site of"],
    ["Concept replaced by", "Concept replaces"],
  ];
  let written = 0;
  const emit = (a: number, b: number, fwd: string, back: string) => {
    const invalid = rand() < 0.01 ? "D" : "";
    const end = invalid ? "20200131" : "20991231";
    rels.line(`${ids[a]}\t${ids[b]}\t${fwd}\t19700101\t${end}\t${invalid}`);
    rels.line(`${ids[b]}\t${ids[a]}\t${back}\t19700101\t${end}\t${invalid}`);
    written += 2;
  };
  for (let i = 0; written < o.relationships; i = (i + step) % n) {
    const v = vocabOf[i]!;
    const pool = standardIdx[v]!.length > 0 ? standardIdx[v]! : anyStandard;
    // Every concept maps to a standard one (itself when standard), as Athena's "Maps to" does.
    const target = standard[i] ? i : anyStandard[Math.floor(rand() * anyStandard.length)]!;
    emit(i, target, "Maps to", "Mapped from");
    const extra = Math.floor(rand() * 6);
    for (let e = 0; e < extra && written < o.relationships; e++) {
      const [fwd, back] = pairs[Math.floor(rand() * pairs.length)]!;
      emit(i, pool[Math.floor(rand() * pool.length)]!, fwd, back);
    }
  }
  rels.close();

  const vocab = new LineWriter(join(o.out, "VOCABULARY.csv"));
  vocab.line(
    "vocabulary_id\tvocabulary_name\tvocabulary_reference\tvocabulary_version\tvocabulary_concept_id",
  );
  for (const v of VOCABS) vocab.line(`${v.id}\tSynthetic ${v.id}\tbench/vocab-generate.ts\tsynthetic-1\t0`);
  vocab.close();
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      concepts: { type: "string", default: "5000000" },
      relationships: { type: "string", default: "40000000" },
      out: { type: "string", default: "bench/out/athena" },
    },
  });
  const t = Date.now();
  generateAthena({
    concepts: Number(values.concepts),
    relationships: Number(values.relationships),
    out: values.out!,
  });
  process.stdout.write(
    `${JSON.stringify({ generated: values.out, concepts: Number(values.concepts), relationships: Number(values.relationships), ms: Date.now() - t })}\n`,
  );
}
