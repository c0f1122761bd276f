// Steps: each tool call of an agent inside a turn that changed files (an automatic turn's bursts
// of changes). A step's target ("3.2", or "turn:3:step:2") is the state just before it ran: a
// preview, a rewind or a revert takes it as it takes a turn's. A step lies inside its turn, so a
// rewind to it moves the files only (mode `code`): a conversation goes back to a turn's start or
// end, never into a turn. The words (a step's title, age, what it changed) are the server's.
// Nothing here imports `vscode`, so test/unit exercises it directly under `node --test`.

import type { FileChange, StepInfo, TurnInfo } from './protocol';

/** stepsOf lists a turn's steps in order (those the server named a target for). */
export function stepsOf(t: TurnInfo): StepInfo[] {
  return (t.steps ?? []).filter((s) => !!s && !!s.target);
}

/** isStepTarget tells whether a target names a step: "3.2" or "turn:3:step:2". */
export function isStepTarget(target: string): boolean {
  return /^\s*(\d+\.\d+|turn:\d+:step:\d+)\s*$/.test(target);
}

/** A child of a turn in the Rewind view: one of its steps, or one of the files it changed. */
export type TurnChild = { kind: 'step'; step: StepInfo } | { kind: 'file'; file: FileChange };

/** turnChildren lays out what a turn shows when expanded: its steps first, in order (each expands
 *  to its own files), then every file the turn changed in all. */
export function turnChildren(t: TurnInfo): TurnChild[] {
  return [
    ...stepsOf(t).map((step): TurnChild => ({ kind: 'step', step })),
    ...(t.changed ?? []).map((file): TurnChild => ({ kind: 'file', file })),
  ];
}

/** stepDescription is what a step's row says after its title: "5m ago · 1 file changed (+1 -0)". */
export function stepDescription(s: StepInfo): string {
  return [s.age, s.what].filter(Boolean).join(' · ');
}

/** beforeLabel names where a file's diff from a row of the view starts, as the plan's title
 *  names a step: "before turn 3", "before step 2 of turn 3". */
export function beforeLabel(turn: number, step?: number): string {
  return step ? `before step ${step} of turn ${turn}` : `before turn ${turn}`;
}
