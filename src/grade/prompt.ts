import { createHash } from 'node:crypto';

/*
 * The judge's prompts. Each is versioned; its hash (of the template, before any input is put in) is
 * recorded with every grade and is part of the cache key, so editing a template can never serve a
 * verdict given to another prompt. Change the text => bump the version.
 */

export const GRADE_PROMPT_VERSION = 'grade-v1';
export const PAIRWISE_PROMPT_VERSION = 'pairwise-v1';

const GRADE_TEMPLATE = `You are grading an answer that a code-search assistant gave to a question about code.
{{preamble}}Grade the answer against the rubric and/or the reference answer below. Judge only what the answer says and whether it is correct and specific; do not reward length or confidence. A score of 0 means wrong or useless, 1 means it fully meets the rubric and agrees with the reference.

<question>
{{question}}
</question>
{{rubric}}{{reference}}<answer>
{{answer}}
</answer>

Reply with only one JSON object and nothing else, in this form:
{"score": <number from 0 to 1>, "pass": <true or false>, "reasons": ["<short reason>", "..."]}`;

const PAIRWISE_TEMPLATE = `You are comparing two answers that code-search assistants gave to the same question about code.
{{preamble}}Decide which answer is better: more correct, more specific, better supported by the code it cites. Use the rubric and/or the reference answer when given. Do not prefer an answer for its length or its position. Answer "tie" when neither is better.

<question>
{{question}}
</question>
{{rubric}}{{reference}}<answer_a>
{{answerA}}
</answer_a>
<answer_b>
{{answerB}}
</answer_b>

Reply with only one JSON object and nothing else, in this form:
{"winner": "A" | "B" | "tie", "reasons": ["<short reason>", "..."]}`;

export const GRADE_PROMPT_HASH = hash(`${GRADE_PROMPT_VERSION}\n${GRADE_TEMPLATE}`).slice(0, 16);
export const PAIRWISE_PROMPT_HASH = hash(`${PAIRWISE_PROMPT_VERSION}\n${PAIRWISE_TEMPLATE}`).slice(0, 16);

export interface GradeInputs {
  question: string;
  answer: string;
  rubric?: string | undefined;
  reference?: string | undefined;
  preamble?: string | undefined;
}

export interface PairwiseInputs {
  question: string;
  answerA: string;
  answerB: string;
  rubric?: string | undefined;
  reference?: string | undefined;
  preamble?: string | undefined;
}

export function gradePrompt(inputs: GradeInputs): string {
  return fill(GRADE_TEMPLATE, { ...common(inputs), answer: escapeTags(inputs.answer) });
}

export function pairwisePrompt(inputs: PairwiseInputs): string {
  return fill(PAIRWISE_TEMPLATE, { ...common(inputs), answerA: escapeTags(inputs.answerA), answerB: escapeTags(inputs.answerB) });
}

/** Hash of what fills a prompt: with the model and the prompt's hash, the key of the judge cache. */
export function inputsHash(inputs: GradeInputs | PairwiseInputs): string {
  const ordered = Object.keys(inputs)
    .sort()
    .map((k) => [k, (inputs as unknown as Record<string, string | undefined>)[k] ?? null]);
  return hash(JSON.stringify(ordered)).slice(0, 32);
}

function common(inputs: GradeInputs | PairwiseInputs): Record<string, string> {
  return {
    preamble: inputs.preamble ? `${inputs.preamble.trim()}\n` : '',
    question: escapeTags(inputs.question),
    rubric: inputs.rubric ? `<rubric>\n${escapeTags(inputs.rubric)}\n</rubric>\n` : '',
    reference: inputs.reference ? `<reference>\n${escapeTags(inputs.reference)}\n</reference>\n` : '',
  };
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
}

/** An answer must not close the section it is quoted in. */
function escapeTags(text: string): string {
  return text.replace(/<\/?(question|rubric|reference|answer(?:_a|_b)?)>/gi, (tag) => tag.replace('<', '&lt;'));
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
