// Messages of the mirror actor (per-project read-only replicas,
// specification "Project folder and settings"). Declared so that the
// supervisor's routing has its place; the actor arrives with its own issue.

export type MirrorMessage =
  /** Copy at most 8 raw records and check 32 metadata ids of one project. */
  | { readonly type: 'syncStep' }
  | { readonly type: 'status' };

export interface MirrorReplies {
  syncStep: { readonly copied: number; readonly more: boolean };
  status: { readonly phase: 'not-started' | 'syncing' | 'idle'; readonly projects: number };
}
