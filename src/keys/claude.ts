// Names of Claude Code things in history.db (docs/formats.md §1):
//   conversation   claude:<session>, a native child claude:<session>:native:<agent id>
//   record source  the transcript's path; lines routed to an inline sidechain's
//                  conversation are kept under <source>:inline:<conversation>

export function claudeConversation(session: string, agentId?: string | null): string {
  return agentId ? `claude:${session}:native:${agentId}` : `claude:${session}`;
}

export function inlineSource(source: string, conversation: string): string {
  return `${source}:inline:${conversation}`;
}
