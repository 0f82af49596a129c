#!/usr/bin/env node
// Regenerates the HL7 v2 definitions the ER7 reader and `crossmap check` read, from the hl7-dictionary
// package (MIT; the HL7 v2 messages, segments and fields as data), so they are never typed by hand:
//   crossmaps/standards/hl7v2_2.5.1.yaml            every segment of the message structures below, field by
//                                                   field (v2.5.1; segments v2.5.1 lacks, such as PRT and ARV,
//                                                   from v2.7.1). Aliases already in the file are kept.
//   crossmaps/standards/hl7v2/message-structures.yaml  the message structures (segment groups) the reader
//                                                   places segments in, and which trigger event uses which.
// Usage: node scripts/gen-hl7v2-standard.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const require = createRequire(import.meta.url);
const v251 = require("hl7-dictionary/lib/2.5.1");
const v271 = require("hl7-dictionary/lib/2.7.1");

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const standards = join(root, "crossmaps", "standards");

// HL7 table 0354 (message structure) for the trigger events the built-in crossmap reads. The structure of
// v2.7.1 is used where it exists (a superset of the earlier ones for these messages: PRT, ARV, UAC), else v2.5.1.
const STRUCTURES = {
  ADT_A01: ["ADT^A01", "ADT^A04", "ADT^A08", "ADT^A13"],
  ADT_A02: ["ADT^A02"],
  ADT_A03: ["ADT^A03"],
  ADT_A05: ["ADT^A05", "ADT^A14", "ADT^A28", "ADT^A31"],
  ADT_A06: ["ADT^A06", "ADT^A07"],
  ADT_A09: ["ADT^A09", "ADT^A10", "ADT^A11", "ADT^A12"],
  ADT_A17: ["ADT^A17"],
  ADT_A39: ["ADT^A39", "ADT^A40", "ADT^A41", "ADT^A42"],
  ORU_R01: ["ORU^R01"],
  OUL_R22: ["OUL^R22"],
  ORM_O01: ["ORM^O01"],
  OML_O21: ["OML^O21"],
  RDE_O11: ["RDE^O11"],
  RDE_O25: ["RDE^O25"],
  RAS_O17: ["RAS^O17"],
  VXU_V04: ["VXU^V04"],
  MDM_T02: ["MDM^T02", "MDM^T04", "MDM^T06", "MDM^T08", "MDM^T10"],
  MDM_T01: ["MDM^T01", "MDM^T03", "MDM^T05", "MDM^T07", "MDM^T09", "MDM^T11"],
  SIU_S12: ["SIU^S12", "SIU^S13", "SIU^S14", "SIU^S15", "SIU^S16", "SIU^S17", "SIU^S26"],
  DFT_P03: ["DFT^P03"],
  PPR_PC1: ["PPR^PC1", "PPR^PC2", "PPR^PC3"],
};
// The dictionary keys some structures by another event of the same structure.
const DICTIONARY_KEY = { ADT_A39: ["ADT_A39", "ADT_A40"], RDE_O11: ["RDE_O11"], MDM_T02: ["MDM_T02"] };
// Typos in the source data, corrected.
const GROUP_NAMES = { TIIMING: "TIMING" };

function definition(structure) {
  for (const [version, dict] of [
    ["2.7.1", v271],
    ["2.5.1", v251],
  ]) {
    for (const key of DICTIONARY_KEY[structure] ?? [structure]) {
      const m = dict.messages[key];
      if (m) return { version, items: m.segments.segments };
    }
  }
  throw new Error(`no definition of ${structure}`);
}

/** HL7's abstract message syntax: `PID`, `[PD1]`, `{NK1}`, `[{ROL}]`; a group is `{NAME: [...]}` keyed the same way. */
function bracket(name, min, max) {
  const repeating = max !== 1;
  const inner = repeating ? `{${name}}` : name;
  return min === 0 ? `[${inner}]` : inner;
}

const segmentsUsed = new Set();
function items(list) {
  return list.map((x) => {
    if (x.children) {
      const name = GROUP_NAMES[x.name] ?? x.name;
      return { [bracket(name, x.min, x.max)]: items(x.children) };
    }
    // A choice (ORM_O01's OBR,RQD,RQ1,RXO,ODS,ODT) is written with "|" between the alternatives.
    const names = x.name.split(",");
    for (const n of names) segmentsUsed.add(n);
    return bracket(names.join("|"), x.min, x.max);
  });
}

// Groups of later versions that senders already use in these messages and the v2-to-FHIR IG's message maps
// name (v2.8+): ORU_R01's COMMON_ORDER, an ORC with the PRTs of the order (its ordering provider) before the
// OBR. Without it a PRT between ORC and OBR would end the ORDER_OBSERVATION, and the OBR would start a new
// one that no longer sees its ORC.
const LATER_GROUPS = {
  ORU_R01: (list) =>
    list.map(function common(x) {
      if (x === "[ORC]") return { "[COMMON_ORDER]": ["ORC", "[{PRT}]"] };
      if (typeof x === "string") return x;
      const [k, v] = Object.entries(x)[0];
      return { [k]: v.map(common) };
    }),
};

function structures() {
  const out = {};
  const events = {};
  for (const [structure, triggers] of Object.entries(STRUCTURES)) {
    const { version, items: list } = definition(structure);
    const later = LATER_GROUPS[structure];
    out[structure] = { version, segments: later ? later(items(list)) : items(list) };
    for (const t of triggers) events[t] = structure;
  }
  const header = [
    "# HL7 v2 message structures (segment groups) the ER7 reader places each segment in, so that a crossmap",
    "# can map a segment in the context of its group: `$ctx.group`, `$ctx.parent`, `$ctx.ref.<TYPE>` (docs/hl7v2.md).",
    "# Generated by scripts/gen-hl7v2-standard.mjs from the hl7-dictionary package (MIT): do not edit by hand.",
    "# Notation as in the standard: [X] optional, {X} repeating, A|B a choice; a group is {NAME: [...]}.",
    "# `events`: message type ^ trigger event -> structure (HL7 table 0354); MSH-9.3 names a structure directly.",
  ].join("\n");
  writeFileSync(
    join(standards, "hl7v2", "message-structures.yaml"),
    `${header}\n${stringify({ events, structures: out }, { lineWidth: 0, flowCollectionPadding: false })}`,
  );
}

const alias = (desc) =>
  desc
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

function segments() {
  const file = join(standards, "hl7v2_2.5.1.yaml");
  const existing = parse(readFileSync(file, "utf8")).entities;
  const names = [...new Set([...Object.keys(existing), ...[...segmentsUsed].sort()])];
  const lines = [
    "# HL7 v2.5.1 segments: those of the message structures in hl7v2/message-structures.yaml, field by field.",
    "# `name` is the field's position (what crossmap paths use: PID.5), `alias` the name the ER7 reader also",
    "# accepts (PID.patient_name), `label` the standard's own name, `type` its data type, `required` R in the standard.",
    "# Generated by scripts/gen-hl7v2-standard.mjs from the hl7-dictionary package (MIT); segments v2.5.1 lacks",
    "# (ARV, PRT, ...) are those of v2.7.1. Aliases of earlier versions of this file are kept.",
    "standard: hl7v2_2.5.1",
    "entities:",
  ];
  for (const seg of names) {
    const def = v251.segments[seg] ?? v271.segments[seg];
    if (!def) {
      if (existing[seg]) throw new Error(`${seg} is in the file but not in the dictionary`);
      continue;
    }
    lines.push(`  ${seg}:  # ${def.desc}${v251.segments[seg] ? "" : " (v2.7.1)"}`, "    fields:");
    const kept = new Map((existing[seg]?.fields ?? []).map((f) => [f.name, f]));
    const seen = new Set();
    const line = (f) =>
      `      - {name: "${f.name}", alias: ${f.alias}, label: "${f.label}", type: ${f.type}${f.required ? ", required: true" : ""}}`;
    // Messages of later versions send more fields (MSH-22..25, PID-40): those of v2.7.1 follow.
    const later = v271.segments[seg]?.fields ?? [];
    const count = Math.max(def.fields.length, kept.size, later.length);
    for (let i = 0; i < count; i++) {
      const name = String(i + 1);
      // Fields already in the file are kept as they are (the file predates this script for some segments,
      // and the dictionary lacks v2.5.1's last fields of a few, such as OBX-21..25).
      const old = kept.get(name);
      if (old) {
        seen.add(old.alias);
        lines.push(line(old));
        continue;
      }
      const f = def.fields[i] ?? later[i];
      if (!f) continue;
      const since = def.fields[i] || !v251.segments[seg] ? "" : " (v2.7.1)";
      let a = alias(f.desc);
      // An alias must be unique within its segment and must not look like a position.
      if (seen.has(a) || /^\d/.test(a)) a = `${a}_${name}`;
      seen.add(a);
      const type = !f.datatype || f.datatype === "VARIES" ? "varies" : f.datatype;
      lines.push(
        line({ name, alias: a, label: `${f.desc.replace(/"/g, "'")}${since}`, type, required: f.opt === 2 && !since }),
      );
    }
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}

structures();
segments();
