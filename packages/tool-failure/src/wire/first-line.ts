/** The first line of a text: what a one-line report shows of a longer message. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

/** The first line of an error's message, or of the text of a thrown value that is not an error. */
export function firstLineOf(error: unknown): string {
  return firstLine(error instanceof Error ? error.message : String(error));
}
