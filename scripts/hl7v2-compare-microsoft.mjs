#!/usr/bin/env node
// Compares the values of the built-in HL7 v2 -> FHIR crossmap with Microsoft FHIR-Converter's expected Bundles
// (test/fixtures/hl7v2/ms-fhir-converter-expected/, MIT) where both produce the same element: resources of
// one type are paired by identifier, code or natural key (never by id), and the leaf values of every element
// path both write are compared (codes and systems, units, dates and times, names, identifiers, statuses).
// Times are compared as instants, so Microsoft's shift to its own offset is not a difference. Each path whose
// values differ is given a reason (REASONS below); docs/hl7v2.md holds the resulting table between the
// `values` markers and test/pipeline/hl7v2/values.test.ts checks that it is exactly what the corpus gives.
//
// Usage (after `npm run build`): node scripts/hl7v2-compare-microsoft.mjs [--write] [--diffs]
//   prints the table; --write replaces it in docs/hl7v2.md; --diffs also prints every differing value.
// The functions below take Bundles and use nothing but the language, so the test runs them on its own output.

/** Bookkeeping resources: not clinical content, and Microsoft's carry its own run (time, template version). */
const SKIP_TYPES = new Set(["MessageHeader", "Provenance"]);
/** Keys that hold no comparable value: resource ids, links between resources, narrative, base64 payloads. */
const SKIP_KEYS = new Set(["id", "meta", "fullUrl", "reference", "text", "div", "data", "url"]);

/** Paths whose value identifies a resource, for pairing (identifier values, codes, names). */
const KEY_PATHS = [
  /^identifier\.value$/,
  /^(code|vaccineCode|medicationCodeableConcept|type|relationship)\.coding\.code$/,
  /^name\.(family|text)$/,
  /^name$/,
  /^telecom\.value$/,
  /^(class\.code|status)$/,
];

/**
 * Why a path's values differ, checked in order; the first rule whose type and path match wins. `kind` is the
 * reason category of the table: "IG" (the IG maps the field otherwise; `why` cites the row), "Microsoft"
 * (Microsoft's own choice or template bug), "duplicates" (Microsoft merges or repeats values), "crossmap" (a
 * documented choice of the crossmap where the IG gives no map), "gap" (a field the IG maps that the crossmap
 * does not map yet). A differing path no rule explains is listed as "unexplained" (a bug to fix).
 */
const PLACEHOLDER = "Microsoft writes a placeholder system (http://example.com/v2-to-fhir-converter/...) for a coding-system name it does not know; the crossmap writes the system table 0396 names";
export const REASONS = [
  // Microsoft's placeholder systems, wherever they appear.
  { path: /(^|\.)system$/, kind: "Microsoft", why: PLACEHOLDER, when: (r) => r.theirs.some((v) => String(v).startsWith("http://example.com/")) },
  // Patient (IG PID[Patient])
  { type: "Patient", path: /^identifier\.(value|type\.coding\.code)$/, kind: "duplicates", why: "Microsoft also copies the insurance numbers (IN1-49, IN2-6/7/8) and the prior identifier of MRG into Patient.identifier; the crossmap writes them to Coverage and to the merged-away Patient (IG IN2[Coverage], MRG[Patient]); PID-19 is type SS (IG PID-19: SS in the US; Microsoft writes SB)" },
  { type: "Patient", path: /^name\.(family|given)$/, kind: "duplicates", why: "Microsoft also writes names of other people of the message into the Patient (\"Jack\", \"Smith^Robert\")" },
  { type: "Patient", path: "name.use", kind: "IG", why: "IG XPN[HumanName] row 15: the called-by name (XPN-15, \"Addsm\") is a HumanName of its own, use nickname; Microsoft adds it to the given names" },
  { type: "Patient", path: /^extension\[us-core-race\]/, kind: "Microsoft", why: "Microsoft joins the texts of every race (\"White+Asian\"); the crossmap writes the first race's text (PID-10.2), as US Core allows" },
  { type: "Patient", path: /^extension\[us-core-ethnicity\]/, kind: "Microsoft", why: "Microsoft writes its own display (\"Non Hispanic or Latino\"); the crossmap the CDC display and the sender's text (PID-22.2)" },
  { type: "Patient", path: "extension[patient-mothersMaidenName].valueString", kind: "IG", why: "IG PID-6 maps XPN[string]: the family name only; Microsoft joins family, given and middle name" },
  { type: "Patient", path: /^extension\[patient-religion\]/, kind: "IG", why: "IG PID-17 maps through its Religion ConceptMap, which leaves AME unmapped: the crossmap keeps the sender's HL7 table 0006 code; Microsoft writes a v3 ReligiousAffiliation code" },
  { type: "Patient", path: /^extension\[patient-importance\]/, kind: "IG", why: "IG PV1-16 maps through its VIPIndicator ConceptMap to v3 EncounterSpecialCourtesy (VIP); Microsoft keeps the sender's codings under placeholder systems (L, DCM)" },
  { type: "Patient", path: /^communication\.language/, kind: "IG", why: "IG PID-15 maps CWE[CodeableConcept] (its PrimaryLanguage ConceptMap lists no v2 codes): the crossmap keeps the sender's ISO 639 codes (ara, eng) under table 0296; Microsoft converts them to BCP 47 (ar, en)" },
  { type: "Patient", path: /^telecom\.(system|use)$/, kind: "Microsoft", why: "Microsoft writes an XTN-3 of \"JP:1234567\" as the system and XTN-2 \"HOME\" as the use, neither valid FHIR codes; the crossmap writes phone and the IG's default use for PID-13, home" },
  // Encounter (IG PV1[Encounter])
  { type: "Encounter", path: "status", kind: "IG", why: "IG PV1-2 and PV1-45: a preadmit (PV1-2 = P) without a discharge date is planned (PatientClass[EncounterStatus]); Microsoft takes the trigger event (A01 in-progress), which the IG applies only to ADT_A11 (cancelled)" },
  { type: "Encounter", path: "location.status", kind: "IG", why: "IG PV1-3: the assigned location of a preadmit (PV1-2 = P) is planned (Microsoft: active); IG PV1-42: the pending location is reserved (Microsoft: planned); Microsoft also writes PV1-43 (prior temporary location), which has no IG row" },
  { type: "Encounter", path: /^participant\.type\.coding\.(code|system)$/, kind: "IG", why: "IG ROL[Encounter-PractitionerRole]: a visit's ROL-3 goes through the ProviderRole ConceptMap (PP -> SNOMED CT 446050000, primary care physician) with the sender's table 0443 coding beside it; Microsoft writes the ROL of a primary care provider as REF" },
  { type: "Encounter", path: "participant.type.coding.display", kind: "Microsoft", why: "Microsoft writes a display for the attending doctor only; the crossmap for every v3 ParticipationType code" },
  // Observation (IG OBX[Observation])
  { type: "Observation", path: "status", kind: "crossmap", why: "OBX-11 R, S (preliminary) and I, O (registered) are codes the IG's ConceptMap leaves unmapped; the crossmap maps them as listed next to table0085, Microsoft writes unknown" },
  // Insurance (IG IN1[Coverage])
  { type: "Coverage", path: /^(identifier\.value|class\.(value|type\.coding\.code))$/, kind: "IG", why: "IG IN1-2: the plan id is an identifier (Microsoft: a plan class); IN1-36 (policy number, no IG row) is an identifier in both; Microsoft also writes IN1-49 there, which the crossmap writes as subscriberId" },
  { type: "Coverage", path: /^type\.coding\.(system|code|display)$/, kind: "IG", why: "IG IN1-15 (plan type) through PlanId, which has no row for HMO: the crossmap keeps the sender's code under table 0086; Microsoft writes v3 ActCode" },
  { type: "Coverage", path: /^relationship\.coding/, kind: "IG", why: "IG IN1-17 maps through the Relationship ConceptMap (SPO -> v3 RoleCode SPS); Microsoft writes FHIR's subscriber-relationship codes" },
  // Procedure (IG PR1[Procedure])
  { type: "Procedure", path: "status", kind: "crossmap", why: "a PR1 reports a procedure done: completed (the IG gives no status; FHIR requires one); Microsoft writes unknown" },
  { type: "Procedure", path: /^performer\.function\.coding/, kind: "IG", why: "IG PR1-8 and PR1-11: SNOMED CT 88189002 (anesthesiologist) and 304292004 (surgeon); Microsoft writes codes of its own, and one for PR1-12 that the IG gives none" },
  // Related people (IG NK1[RelatedPerson], GT1)
  { type: "RelatedPerson", path: /^identifier\.(value|type\.coding\.code)$/, kind: "duplicates", why: "Microsoft also writes the mother's identifier of the patient (PID-21) into the mother's RelatedPerson and a GT1 employer id (FI) into the guarantor (the IG has no GT1 map); NK1-37 and GT1-12 are SSNs, type SS (IG NK1-37; Microsoft: SB)" },
  { type: "RelatedPerson", path: "telecom.use", kind: "IG", why: "a cell phone (XTN-3 CP) without XTN-2 is use mobile (IG TelecommunicationEquipmentType: CP -> mobile, which R4's ContactPoint.system lacks, so it is the use); Microsoft writes work" },
  { type: "RelatedPerson", path: /^communication\.language/, kind: "IG", why: "IG NK1-20 maps CWE[CodeableConcept] (PrimaryLanguage lists no v2 codes): the sender's ISO 639 code is kept; Microsoft converts it to BCP 47" },
  { type: "RelatedPerson", path: /^relationship\.coding/, kind: "duplicates", why: "the crossmap writes the guarantor (GT1) with its v3 GUAR role and NK1-7 contact roles (table 0131); Microsoft merges text codes (\"Mother\") and its own v3 mappings of NK1-3 into the same person" },
  { type: "RelatedPerson", path: "address.country", kind: "Microsoft", why: "Microsoft writes the sender's country name where another field of the same person says US" },
  // Orders and referrals (IG ORC/OBR[ServiceRequest], RF1)
  { type: "ServiceRequest", path: "intent", kind: "IG", why: "IG OBR and ORC[ServiceRequest]: intent order; Microsoft writes filler-order for a result's order" },
  { type: "ServiceRequest", path: "status", kind: "crossmap", why: "an ORU without ORC says nothing of its order's status: unknown (Microsoft: active); RF1-1 P (pending, no IG RF1 map) is draft (Microsoft: on-hold)" },
  { type: "ServiceRequest", path: /^category\.coding/, kind: "Microsoft", why: "a referral (RF1) is SNOMED CT 3457005 (patient referral); Microsoft writes codes of its own" },
  { type: "ServiceRequest", path: "identifier.value", kind: "Microsoft", why: "Microsoft writes a subcomponent separator into an identifier (\"9adf...&L\"): the crossmap reads EI-1 alone" },
  { type: "DiagnosticReport", path: "identifier.value", kind: "Microsoft", why: "Microsoft writes a subcomponent separator into an identifier (\"9adf...&L\"): the crossmap reads EI-1 alone" },
  { type: "ServiceRequest", path: "identifier.type.coding.code", kind: "IG", why: "Microsoft writes ORC-4, the placer group number, as a third identifier (type PGN); the IG maps it to ServiceRequest.requisition, where the crossmap writes it" },
  { type: "DiagnosticReport", path: "identifier.type.coding.code", kind: "Microsoft", why: "Microsoft writes ORC-4, the placer group number, as a third identifier (type PGN); the IG's ORC[DiagnosticReport] maps it only as an EIP (v2.8.2), which v2.5.1's EI is not" },
  { type: "MedicationRequest", path: "intent", kind: "crossmap", why: "an RDE orders: intent order (the IG has no RXE map for intent); Microsoft writes filler-order" },
  { type: "ChargeItem", path: "status", kind: "crossmap", why: "an FT1 posts a charge: billable (no IG FT1 map gives a status); Microsoft writes unknown" },
  { type: "Condition", path: "code.coding.system", kind: "crossmap", why: "I10 is read as ICD-10-CM, as US senders use it (see Choices worth knowing); Microsoft reads WHO ICD-10" },
  { type: "PractitionerRole", path: "code.coding.system", kind: "IG", why: "PRT-4 is table 0912 (participation) from v2.7; Microsoft writes table 0443 (ROL's provider role)" },
  { type: "PractitionerRole", path: "telecom.value", kind: "duplicates", why: "Microsoft makes one PractitionerRole of two ROL segments with the same role, so one of them keeps the other's e-mail address" },
  { type: "Appointment", path: "appointmentType.coding.code", kind: "crossmap", why: "SCH-7 and SCH-8 are sent without a coding system, so the IG's rows (by CWE-3 HL70276/HL70277) do not apply: the crossmap reads SCH-7 as the reason and SCH-8 as the type, as v2.5.1 names them; Microsoft takes SCH-7 as the type" },
  { type: "Appointment", path: "appointmentType.coding.system", kind: "crossmap", why: "SCH-8 (the type) is a code of HL7 table 0277, so a code sent without a system gets v2-0277; Microsoft takes SCH-7 (the reason, table 0276) as the type and writes v2-0276" },
  { type: "Appointment", path: /^(start|end)$/, kind: "crossmap", why: "the booked time is SCH-11 (its start and end); the TQ1 is the requested period (no IG TQ1[Appointment] map); Microsoft takes TQ1-7/8" },
  { type: "Appointment", path: /^participant\.(status|type\.coding\.(code|display|system))$/, kind: "crossmap", why: "the AIG/AIL/AIP resources are listed as participants (IG AIG/AIL/AIP[Appointment]) with status accepted: the filler's schedule booked them (the IG gives no status; FHIR requires one); Microsoft writes tentative" },
  { type: "Device", path: /^identifier\.(value|system)$/, kind: "IG", why: "Microsoft also writes PRT-16, the device's UDI identifier, as a Device.identifier; the IG maps it to udiCarrier.deviceIdentifier (EI[Device-udiCarrier]), where the crossmap writes it" },
  { type: "Device", path: "deviceName.type", kind: "crossmap", why: "AIG-3 (the equipment booked) is the device's user-friendly name; Microsoft writes model-name" },
  { type: "Specimen", path: "identifier.value", kind: "gap", why: "SPM-31/32 (v2.8 accession and other specimen ids) are not mapped" },
  { type: "Specimen", path: "condition.coding.display", kind: "Microsoft", why: "Microsoft repeats the code as the display of codings sent without a text" },
  { type: "Specimen", path: "identifier.system", kind: "IG", why: "IG HD rules: an OID system only for a universal id of type ISO; SPM-32's is CLIP, so the crossmap writes no urn:oid: for it (Microsoft does)" },
];

/** Flattens a resource to `path -> [values]`, array indices dropped, extensions named by their url's tail. */
export function leaves(resource) {
  const out = new Map();
  const add = (path, v) => {
    const list = out.get(path);
    if (list) list.push(v);
    else out.set(path, [v]);
  };
  const walk = (node, path) => {
    if (Array.isArray(node)) {
      for (const x of node) walk(x, path);
      return;
    }
    if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (SKIP_KEYS.has(k) || k.startsWith("_") || k === "resourceType") continue;
        if (k === "extension" || k === "modifierExtension") {
          for (const e of Array.isArray(v) ? v : [v]) {
            const tail = String(e?.url ?? "").replace(/^.*\//, "");
            walk(e, `${path ? `${path}.` : ""}${k}[${tail}]`);
          }
          continue;
        }
        walk(v, path ? `${path}.${k}` : k);
      }
      return;
    }
    if (node === undefined || node === null || node === "") return;
    add(path, node);
  };
  walk(resource, "");
  return out;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A value as compared: numbers by value, date-times with an offset as the instant they name. */
function norm(v) {
  if (typeof v === "number") return `#${v}`;
  if (typeof v === "boolean") return String(v);
  const s = String(v).trim();
  if (DATE_TIME.test(s)) return `@${new Date(s).toISOString()}`;
  if (/^-?\d+(\.\d+)?$/.test(s)) return s;
  return s;
}

const setOf = (values) => [...new Set(values.map(norm))].sort();

function keysOf(type, flat) {
  const keys = new Set();
  for (const [path, values] of flat) {
    if (!KEY_PATHS.some((re) => re.test(path))) continue;
    for (const v of values) keys.add(`${path}=${norm(v)}`);
  }
  if (type === "Observation") {
    // Repeated tests (the same code in two orders) are told apart by their value and time.
    for (const p of ["valueQuantity.value", "valueString", "valueCodeableConcept.coding.code", "effectiveDateTime"])
      for (const v of flat.get(p) ?? []) keys.add(`${p}=${norm(v)}`);
  }
  return keys;
}

/** Microsoft's duplicates (the same resource made once per field that names it) count once. */
function distinct(resources) {
  const seen = new Set();
  const out = [];
  for (const r of resources) {
    const sig = JSON.stringify([...leaves(r)].sort());
    if (seen.has(sig)) continue;
    seen.add(sig);
    out.push(r);
  }
  return out;
}

function byType(bundle) {
  const out = new Map();
  for (const e of bundle.entry ?? []) {
    const r = e.resource;
    if (!r || SKIP_TYPES.has(r.resourceType)) continue;
    const list = out.get(r.resourceType);
    if (list) list.push(r);
    else out.set(r.resourceType, [r]);
  }
  return out;
}

/**
 * Pairs the resources of one type: highest number of shared keys first (an identifier counts three), ties
 * by position; a resource is paired at most once and only when it shares a key.
 */
export function pair(type, ours, theirs) {
  const a = ours.map((r) => ({ r, flat: leaves(r) })).map((x) => ({ ...x, keys: keysOf(type, x.flat) }));
  const b = distinct(theirs)
    .map((r) => ({ r, flat: leaves(r) }))
    .map((x) => ({ ...x, keys: keysOf(type, x.flat) }));
  const candidates = [];
  a.forEach((x, i) => {
    b.forEach((y, j) => {
      let score = 0;
      for (const k of x.keys) if (y.keys.has(k)) score += k.startsWith("identifier.") ? 3 : 1;
      if (type === "Observation" && ![...x.keys].some((k) => k.startsWith("code.") && y.keys.has(k))) score = 0;
      if (score > 0) candidates.push({ i, j, score });
    });
  });
  candidates.sort((p, q) => q.score - p.score || Math.abs(p.i - p.j) - Math.abs(q.i - q.j) || p.i - q.i);
  const usedA = new Set();
  const usedB = new Set();
  const pairs = [];
  for (const c of candidates) {
    if (usedA.has(c.i) || usedB.has(c.j)) continue;
    usedA.add(c.i);
    usedB.add(c.j);
    pairs.push([a[c.i], b[c.j]]);
  }
  return pairs;
}

/**
 * Every compared value of one message: `{message, type, path, agree, ours, theirs}` for each paired resource
 * and each leaf path both resources write (values compared as sets).
 */
export function compareBundles(message, ours, theirs) {
  const rows = [];
  const mine = byType(ours);
  const other = byType(theirs);
  for (const [type, list] of [...mine].sort(([x], [y]) => (x < y ? -1 : 1))) {
    const them = other.get(type);
    if (!them) continue;
    for (const [x, y] of pair(type, list, them)) {
      for (const [path, values] of x.flat) {
        const theirValues = y.flat.get(path);
        if (!theirValues) continue;
        const s = setOf(values);
        const t = setOf(theirValues);
        const agree = s.length === t.length && s.every((v, i) => v === t[i]);
        const raw = (xs) => [...new Set(xs.map(String))].sort().join("\n");
        rows.push({
          message,
          type,
          path,
          agree,
          // Equal instants written with different offsets: Microsoft's shift to its own offset, undone.
          shifted: agree && raw(values) !== raw(theirValues),
          ours: values,
          theirs: theirValues,
        });
      }
    }
  }
  return rows;
}

/** The first REASONS rule that explains a differing row, else undefined. */
export function reasonFor(row) {
  return REASONS.find(
    (r) =>
      (r.type === undefined || r.type === row.type) &&
      (typeof r.path === "string" ? r.path === row.path : r.path.test(row.path)) &&
      (r.when === undefined || r.when(row)),
  );
}

const KIND = {
  IG: "IG says otherwise",
  Microsoft: "Microsoft's choice",
  duplicates: "Microsoft's duplicates",
  crossmap: "crossmap's choice where the IG is silent",
  gap: "not mapped yet",
  unexplained: "unexplained (a bug)",
};

/** The markdown of the values section: a summary line and one row per (type, path) with differences. */
export function valuesTable(rows) {
  const agree = rows.filter((r) => r.agree).length;
  const byPath = new Map();
  for (const r of rows) {
    const key = `${r.type}.${r.path}`;
    let e = byPath.get(key);
    if (!e) {
      e = { type: r.type, path: r.path, compared: 0, differ: 0, reason: undefined, unexplained: false };
      byPath.set(key, e);
    }
    e.compared++;
    if (!r.agree) {
      e.differ++;
      const why = reasonFor(r);
      if (!why) e.unexplained = true;
      e.reason ??= why;
    }
  }
  const fmt = (n) => n.toLocaleString("en-US");
  const shifted = rows.filter((r) => r.shifted).length;
  const lines = [
    `${fmt(agree)} of ${fmt(rows.length)} compared values agree (${fmt(byPath.size)} element paths, ` +
      `${fmt([...byPath.values()].filter((e) => e.differ === 0).length)} of them without a difference); ` +
      `${fmt(shifted)} of the agreeing values are times that Microsoft shifted to its own offset (the same instant).`,
    "",
    "| element | compared | differ | category | why |",
    "|---|---:|---:|---|---|",
  ];
  for (const e of [...byPath.values()].filter((e) => e.differ > 0).sort((p, q) => (`${p.type}.${p.path}` < `${q.type}.${q.path}` ? -1 : 1))) {
    const kind = e.unexplained ? "unexplained" : (e.reason?.kind ?? "unexplained");
    const why = e.unexplained ? "" : (e.reason?.why ?? "");
    lines.push(`| ${e.type}.${e.path} | ${e.compared} | ${e.differ} | ${KIND[kind]} | ${why} |`);
  }
  return lines.join("\n");
}

/** Replaces the table between the `values` markers of a markdown text. */
export function withValuesTable(markdown, table) {
  const start = "<!-- values:start -->";
  const end = "<!-- values:end -->";
  const i = markdown.indexOf(start);
  const j = markdown.indexOf(end);
  if (i < 0 || j < 0) throw new Error("docs/hl7v2.md has no values markers");
  return `${markdown.slice(0, i + start.length)}\n${table}\n${markdown.slice(j)}`;
}

async function main() {
  const { readdirSync, readFileSync, writeFileSync } = await import("node:fs");
  const { dirname, join, resolve } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const { convertText, loadCrossmapFile } = await import(join(root, "dist", "index.js"));
  const crossmap = await loadCrossmapFile(join(root, "crossmaps", "hl7v2_2.5.1-to-fhir_r4.yaml"));
  const samples = join(root, "test", "fixtures", "hl7v2", "samples");
  const expected = join(root, "test", "fixtures", "hl7v2", "ms-fhir-converter-expected");
  const rows = [];
  for (const f of readdirSync(expected).filter((n) => n.endsWith("-expected.json")).sort()) {
    const name = f.replace(/-expected\.json$/, ".hl7");
    const theirs = JSON.parse(readFileSync(join(expected, f), "utf8"));
    for (const r of convertText(readFileSync(join(samples, name), "utf8"), crossmap, { file: name }))
      if (r.ok) rows.push(...compareBundles(name, r.bundle, theirs));
  }
  const table = valuesTable(rows);
  console.log(table);
  if (process.argv.includes("--diffs"))
    for (const r of rows.filter((x) => !x.agree))
      console.log(`${r.message} ${r.type}.${r.path}: ours ${JSON.stringify(r.ours)} theirs ${JSON.stringify(r.theirs)}`);
  if (process.argv.includes("--write")) {
    const doc = join(root, "docs", "hl7v2.md");
    writeFileSync(doc, withValuesTable(readFileSync(doc, "utf8"), table));
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) await main();
