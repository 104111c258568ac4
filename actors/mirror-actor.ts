// Mirror actor: per-project read-only replicas (src/mirror/). Owns the
// mirror's connections (its read-only one to history.db and one per open
// replica) and answers typed messages. The scheduler asks it for one step
// between capture batches (after a real timer yield), never while capture
// is paused or inside a capture transaction; a step never throws: a project
// that cannot be written is deferred with its reason and retried.

import type { Actor } from '../protocols/actor.ts';
import type { MirrorMessage, MirrorPhase, MirrorReplies, MirrorStatus, MirrorStepResult } from '../protocols/mirror.ts';
import type { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { errorText } from '../src/mirror/problem.ts';

const NOTHING: MirrorStepResult = { copied: 0, checked: 0, more: false };

export class MirrorActor implements Actor<MirrorMessage, MirrorReplies> {
  readonly name = 'mirror';
  private current: Promise<MirrorStepResult> | null = null;
  private stopped = false;

  constructor(
    private readonly sync: MirrorSync,
    /** Whether capture (and with it the mirror) is paused: pressure, the config switch, a cooldown. */
    private readonly paused: () => boolean,
  ) {}

  handle<T extends MirrorMessage>(message: T): MirrorReplies[T['type']] {
    return (message.type === 'step' ? this.step() : this.status()) as MirrorReplies[T['type']];
  }

  private step(): Promise<MirrorStepResult> {
    if (this.stopped) return Promise.resolve(NOTHING);
    const run = this.sync.step().catch((error: unknown) => {
      this.sync.lastError = errorText(error);
      return NOTHING;
    });
    this.current = run;
    return run;
  }

  private status(): MirrorStatus {
    const { busy, ...rest } = this.sync.status();
    const phase: MirrorPhase = this.paused() ? 'paused' : this.sync.waiting ? 'waiting' : busy ? 'syncing' : 'synced';
    const counts = { synced: 0, syncing: 0, pending: 0, deferred: 0, refused: 0 };
    for (const p of rest.projects) counts[p.state]++;
    const detail = Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ');
    return { phase, ...(detail === '' ? {} : { detail }), ...rest };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.current;
    this.sync.close();
  }
}
