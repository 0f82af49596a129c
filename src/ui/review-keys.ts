// The review view's keyboard map (listed for the reviewer in dialogs.tsx KEYS): which key does what to the
// current item, the list and the page, and the one document listener that sends keys to it.
import { type MutableRef, useEffect, useRef } from "preact/hooks";
import type { Item } from "./api.js";
import type { Action, Body } from "./review-words.js";

/** What the keys act on, as the view has it at this render. */
export interface KeyTargets {
  item: Item | undefined;
  canWrite: boolean;
  /** A dialog is open: it keeps its own keys. */
  dialogOpen: boolean;
  move: (by: number) => void;
  nextPage: () => void;
  previousPage: () => void;
  decide: (item: Item, action: Action, body?: Body) => void;
  override: (item: Item) => void;
  comment: (item: Item) => void;
  undo: () => void;
  toggle: (id: string) => void;
  approveSelected: () => void;
  focusFilter: () => void;
  help: () => void;
  /** Escape in the filter bar: back to the list. */
  leaveFilter: (field: HTMLElement) => void;
}

/** The action of one key press, or undefined when the key means nothing here. */
export function keyAction(e: KeyboardEvent, t: KeyTargets): (() => void) | undefined {
  const { item } = t;
  const keys: Record<string, () => void> = {
    j: () => t.move(1),
    ArrowDown: () => t.move(1),
    k: () => t.move(-1),
    ArrowUp: () => t.move(-1),
    n: t.nextPage,
    p: t.previousPage,
    a: () => item && t.decide(item, "approve"),
    r: () => item && t.decide(item, "reject"),
    o: () => item && t.canWrite && t.override(item),
    c: () => item && t.canWrite && t.comment(item),
    u: t.undo,
    x: () => item && t.toggle(item.id),
    A: t.approveSelected,
    "/": t.focusFilter,
    "?": t.help,
  };
  // 1-9: choose that candidate of the item, concept or schema (the first is the suggestion); a key past
  // the item's list means nothing.
  if (/^[1-9]$/.test(e.key) && item && (item.candidates?.length ?? 0) >= Number(e.key)) {
    return () => t.decide(item, "choose", { candidate: Number(e.key) });
  }
  return keys[e.key];
}

/**
 * Keyboard first: one listener for the whole view; fields and dialogs keep their own keys. The targets are
 * replaced at every render and the listener reads the newest, so a fast "j a" approves the item the j
 * moved to (an effect re-registering the listener would run after paint, leaving a stale item).
 */
export function useReviewKeys(targets: KeyTargets): void {
  const ref: MutableRef<KeyTargets> = useRef(targets);
  ref.current = targets;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = ref.current;
      if (e.ctrlKey || e.metaKey || e.altKey || t.dialogOpen) return;
      const el = e.target as HTMLElement;
      if (el.closest("input, textarea, select, dialog")) {
        if (e.key === "Escape" && el.closest(".filters")) t.leaveFilter(el);
        return;
      }
      if (el.tagName === "BUTTON" && (e.key === "Enter" || e.key === " ")) return;
      const run = keyAction(e, t);
      if (run) {
        e.preventDefault();
        run();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
