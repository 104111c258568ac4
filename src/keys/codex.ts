// Names of Codex things in history.db (docs/formats.md §2):
//   conversation   codex:<thread id>
//   record source  the rollout's path

export function codexConversation(thread: string): string {
  return `codex:${thread}`;
}
