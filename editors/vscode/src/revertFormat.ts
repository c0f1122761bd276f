// Pure presentation of reverts and agent blame: the blame note after a line, its
// hover text, and what the revert confirmation says. Nothing here imports `vscode`.

import { firstLine, plural } from './format';
import type { BlameRange, Plan, RewindResult } from './protocol';

/** BlameStep is the step (one tool call of the turn) that wrote a blame range's lines: its number
 *  and its target, the state just before it ("3.2"). */
export interface BlameStep {
  step: number;
  target: string;
}

/** blameStep is the step that wrote a range's lines; undefined when no step of the turn did (a
 *  turn without tool calls, or a change between them): the turn stands for the lines then. */
export function blameStep(r: BlameRange): BlameStep | undefined {
  return r.step && r.step > 0 && r.stepTarget ? { step: r.step, target: r.stepTarget } : undefined;
}

/** stepTitle is the server's name of the step that wrote a range ("turn 3, step 2: Edit a.txt"). */
function stepTitle(r: BlameRange, s: BlameStep): string {
  return r.stepTitle || `turn ${r.turn}, step ${s.step}`;
}

/** blameNote is the faint text after a line an agent turn wrote: the turn's title and age
 *  ("Turn 3: fix auth · 5m ago"), or, when one of its steps wrote it, the step's
 *  ("turn 3, step 2: Edit a.txt · 5m ago"). */
export function blameNote(r: BlameRange): string {
  const s = blameStep(r);
  return [s ? stepTitle(r, s) : r.title, r.age].filter(Boolean).join(' · ');
}

/** blameHoverMarkdown is the hover of such a line, as the server's own hover says it: the turn
 *  (or the step of it that wrote the line), its prompt and who ran it, and two command links
 *  (their URIs built by the caller: the preview and the revert of that turn or step in the file). */
export function blameHoverMarkdown(r: BlameRange, previewLink: string, revertLink: string): string {
  const esc = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
  const who = [r.sessionLabel ?? '', r.source ? `via ${r.source}` : ''].filter(Boolean);
  const s = blameStep(r);
  const heading = s ? esc(stepTitle(r, s)) : `turn ${r.turn}`;
  const what = s ? `step ${s.step} of turn ${r.turn}` : `turn ${r.turn}`;
  const parts = [`**Agent ${heading}** · ${r.age}`];
  const prompt = firstLine(r.prompt, 200);
  if (prompt) parts.push(`> ${esc(prompt)}`);
  if (who.length) parts.push(esc(who.join(' · ')));
  parts.push(`[Preview](${previewLink}) · [Revert ${what} in this file](${revertLink})`);
  return parts.join('\n\n');
}

/** commandUri is a `command:` link running `id` with one argument. */
export function commandUri(id: string, arg: unknown): string {
  return `command:${id}?${encodeURIComponent(JSON.stringify([arg]))}`;
}

/** RevertPrompt is what the revert confirmation shows for a dry run. */
export interface RevertPrompt {
  /** The revert cannot go through: conflicts (the message names them) or nothing to do. */
  blocked: boolean;
  message: string;
  detail: string;
}

/** revertPrompt describes the dry run of reverting `turnName` ("turn 3 (fix auth)", or a step of
 *  a turn); each file is the server's line of it ("M f.txt  (conflict: changed since by user)"). */
export function revertPrompt(turnName: string, dry: RewindResult): RevertPrompt {
  const what = dry.plan?.target.step ? 'step' : 'turn';
  const files = dry.plan?.files ?? [];
  const conflicts = files.filter((f) => f.conflict);
  if (conflicts.length || dry.failureReason) {
    const lines = conflicts.map((f) => f.line);
    return {
      blocked: true,
      message: `Cannot revert ${turnName}: later changes overlap it in ${plural(conflicts.length, 'file')}. Nothing was changed.`,
      detail: lines.join('\n') || dry.failureReason || '',
    };
  }
  if (files.length === 0) {
    return { blocked: true, message: `Nothing to revert: ${turnName} is already taken back.`, detail: '' };
  }
  const lines = files.map((f) => f.line);
  return {
    blocked: false,
    message: `Revert ${turnName}? ${plural(files.length, 'file')} will change; everything after the ${what} is kept.`,
    detail: lines.slice(0, 12).join('\n') + (lines.length > 12 ? `\n… ${lines.length - 12} more` : ''),
  };
}

/** revertedMessage is the notification after a revert was applied. */
export function revertedMessage(turnName: string, plan: Plan | null | undefined, saved: number): string {
  const n = plan?.files?.length ?? 0;
  return `reverted ${turnName}: ${plural(n, 'file')} changed${saved ? `, ${plural(saved, 'file')} saved` : ''}. "Rewind: Undo Last Rewind" brings it back.`;
}
