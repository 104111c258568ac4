// The figures table printed by bench/ingest.ts: each figure with its value,
// its target and pass/miss, computed from the children's results.

import { formatBreakdown } from './store-breakdown.ts';
import type { IngestRunResult, StoreRunResult } from './results.ts';
import { MiB } from './stats.ts';
import type { StoreFacts } from './store-facts.ts';
import type { VariantResult } from './store-variants.ts';

export interface IngestOutcome {
  readonly run: IngestRunResult;
  readonly facts: StoreFacts;
}

export interface Row {
  readonly figure: string;
  readonly value: string;
  readonly target: string;
  readonly verdict: 'pass' | 'miss' | '';
}

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

export function throughput(o: IngestOutcome): { mibs: number; recs: number; docs: number; cpuMibs: number } {
  const s = o.run.elapsedMs / 1000;
  return {
    mibs: o.facts.sourceBytes / MiB / s,
    recs: o.facts.records / s,
    docs: o.facts.documents / s,
    cpuMibs: o.facts.sourceBytes / MiB / o.run.cpuSeconds,
  };
}

export function baselineOf(runs: readonly StoreRunResult[]): VariantResult[] {
  return runs.flatMap((r) => r.results.filter((v) => v.variant === 'baseline'));
}

function verdict(ok: boolean): 'pass' | 'miss' {
  return ok ? 'pass' : 'miss';
}

export function rows(max: IngestOutcome | null, spec: IngestOutcome | null, stores: readonly StoreRunResult[]): Row[] {
  const out: Row[] = [];
  const base = baselineOf(stores);
  const baseMibs = base.map((b) => b.rawBytes / MiB / b.seconds);
  const baseCpuMibs = base.map((b) => b.rawBytes / MiB / b.cpuSeconds);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  for (const [label, o] of [['max', max], ['spec', spec]] as const) {
    if (o === null) continue;
    const t = throughput(o);
    const note = o.run.windowed ? ` (window of ${f1(o.run.elapsedMs / 1000)} s, ${f1(o.facts.sourceBytes / MiB)} MiB captured; extrapolated)` : ` (${f1(o.run.elapsedMs / 1000)} s)`;
    out.push({ figure: `pace ${label}: source MiB/s`, value: `${f1(t.mibs)}${note}`, target: '', verdict: '' });
    out.push({ figure: `pace ${label}: records/s, lines/s`, value: `${f1(t.recs)} records/s, ${f1(t.docs)} lines/s`, target: '', verdict: '' });
  }
  if (base.length > 0) {
    out.push({ figure: 'baseline MiB/s (blob+FTS5, 1 thread)', value: baseMibs.map(f1).join(', ') + (base.length > 1 ? ` (mean ${f1(mean(baseMibs))})` : ''), target: '', verdict: '' });
  }
  if (max !== null && base.length > 0) {
    const t = throughput(max);
    const ratio = t.mibs / mean(baseMibs);
    out.push({ figure: 'ratio pace max / baseline (wall)', value: f2(ratio), target: '>= 0.70', verdict: verdict(ratio >= 0.7) });
    out.push({ figure: 'ratio per CPU-second (all threads)', value: `${f2(t.cpuMibs / mean(baseCpuMibs))} (${f1(t.cpuMibs)} vs ${f1(mean(baseCpuMibs))} MiB/cpu-s)`, target: '', verdict: '' });
  }
  for (const [label, o] of [['max', max], ['spec', spec]] as const) {
    if (o === null) continue;
    const c = o.run.commits;
    const cpu = o.run.commitCpu;
    out.push({ figure: `pace ${label}: writer batch p50 / p99`, value: `${f1(c.p50)} / ${f1(c.p99)} ms (max ${f1(c.max)}, ${c.count} batches)`, target: 'p99 <= 50 ms', verdict: verdict(c.p99 <= 50) });
    out.push({ figure: `pace ${label}: same batches, writer-thread CPU`, value: `${f1(cpu.p50)} / ${f1(cpu.p99)} ms (run-queue wait p99 ${f1(o.run.commitQueue.p99)} ms)`, target: '(p99 <= 50 ms)', verdict: verdict(cpu.p99 <= 50) });
    const e = o.run.eld;
    out.push({
      figure: `pace ${label}: broker event-loop delay p99`,
      value: `${f1(e.ingest.p99)} ms ingesting (max ${f1(e.ingest.max)}); idle ${f1(e.idleBefore.p99)} before, ${f1(e.idleAfter.p99)} after`,
      target: '<= 10 ms',
      verdict: verdict(e.ingest.p99 <= 10),
    });
    out.push({ figure: `pace ${label}: peak RSS (VmHWM)`, value: `${f1(o.run.peakRss / MiB)} MiB`, target: '<= 300 MiB', verdict: verdict(o.run.peakRss <= 300 * MiB) });
  }
  if (max !== null) {
    const bytes = max.facts.dbBytes + max.facts.walBytes;
    out.push({
      figure: 'history.db bytes per source byte',
      value: `${f2(bytes / max.facts.sourceBytes)} (${f1(bytes / MiB)} MiB incl. ${f1(max.facts.walBytes / MiB)} MiB -wal, for ${f1(max.facts.sourceBytes / MiB)} MiB)`,
      target: '',
      verdict: '',
    });
  }
  return out;
}

export function formatTable(list: readonly Row[]): string {
  const w = [0, 0, 0];
  for (const r of list) {
    w[0] = Math.max(w[0] as number, r.figure.length);
    w[1] = Math.max(w[1] as number, r.value.length);
    w[2] = Math.max(w[2] as number, r.target.length);
  }
  const line = (a: string, b: string, c: string, d: string): string => `| ${a.padEnd(w[0] as number)} | ${b.padEnd(w[1] as number)} | ${c.padEnd(w[2] as number)} | ${d.padEnd(4)} |`;
  return [line('figure', 'value', 'target', ''), line('-'.repeat(w[0] as number), '-'.repeat(w[1] as number), '-'.repeat(w[2] as number), '----'), ...list.map((r) => line(r.figure, r.value, r.target, r.verdict))].join('\n');
}

/** Secondary figures for the profile: variants, parse speed, worker load. */
export function details(max: IngestOutcome | null, stores: readonly StoreRunResult[]): string[] {
  const out: string[] = [];
  const first = stores[0];
  if (first !== undefined) {
    out.push(`derived (off the clock): ${first.files} files, ${first.chunks} chunks, ${first.documents} documents, ${f1(first.rawBytes / MiB)} MiB raw, ${f1(first.textChars / MiB)} M chars of text; parseChunk single thread ${f1(first.rawBytes / MiB / (first.parseMs / 1000))} MiB/s`);
  }
  for (const store of stores) {
    for (const v of store.results) {
      out.push(`variant ${v.variant.padEnd(12)} ${f1(v.rawBytes / MiB / v.seconds).padStart(6)} MiB/s wall, ${f1(v.rawBytes / MiB / v.cpuSeconds).padStart(6)} MiB/cpu-s, batch p50/p99 ${f1(v.batches.p50)}/${f1(v.batches.p99)} ms (CPU ${f1(v.batchesCpu?.p50 ?? 0)}/${f1(v.batchesCpu?.p99 ?? 0)}), db ${f2(v.dbBytes / v.rawBytes)} B/B`);
      if (v.merges !== undefined) out.push(`  ${v.variant} merge steps: ${f1(v.merges.total / 1000)} s in ${v.merges.count} calls after commits, p50/p99 ${f2(v.merges.p50)}/${f1(v.merges.p99)} ms, max ${f1(v.merges.max)} ms; then ${f1((v.compactMs ?? 0) / 1000)} s merging at the idle fanout`);
    }
  }
  if (max !== null) {
    const r = max.run;
    const w = r.threads.worker;
    const wr = r.threads.writer ?? null;
    const writerBusy = r.writerElu === undefined ? '' : `, writer thread mean ${f2(r.writerElu.mean)}, p50 ${f2(r.writerElu.p50)}`;
    out.push(`pace max: thread busy (ELU): history worker mean ${f2(r.workerElu.mean)}, p50 ${f2(r.workerElu.p50)}${writerBusy}; writer commits ${f1(r.commits.total / 1000)} s wall (${f1(r.commitCpu.total / 1000)} s CPU) of ${f1(r.elapsedMs / 1000)} s; process CPU ${f1(r.cpuSeconds)} s`);
    if (r.merges !== undefined && r.mergeCpu !== undefined) {
      out.push(`pace max: FTS5 merge steps ${f1(r.merges.total / 1000)} s wall (${f1(r.mergeCpu.total / 1000)} s CPU) in ${r.merges.count} calls, p50/p99 ${f2(r.merges.p50)}/${f1(r.merges.p99)} ms, max ${f1(r.merges.max)} ms`);
    }
    const span = (t: { cpuMs: number; queueMs: number } | null): string => (t === null ? '?' : `${f1(t.cpuMs / 1000)} / ${f1(t.queueMs / 1000)} s`);
    const others = r.cpuSeconds - (w?.cpuMs ?? 0) / 1000 - (wr?.cpuMs ?? 0) / 1000 - r.threads.main.cpuMs / 1000;
    out.push(`pace max: thread CPU / run-queue wait: history worker ${span(w)}, writer ${span(wr)}, main ${span(r.threads.main)}; other threads (parser pool, libuv, GC) ${f1(others)} s CPU`);
    out.push(`pace max: chunks per batch p50 ${r.commitChunks.p50}, documents per batch p50 ${r.commitDocs.p50}; product status window p50/p99 ${f1(r.finalStatus?.batches.p50Ms ?? 0)}/${f1(r.finalStatus?.batches.p99Ms ?? 0)} ms`);
    out.push(`pace max: heaps (V8 total) history worker ${f1(r.workerHeapMax / MiB)} MiB, writer ${f1((r.writerHeapMax ?? 0) / MiB)} MiB, main thread ${f1(r.mainHeapMax / MiB)} MiB; RSS samples ${r.rssSamples.filter((_, i, a) => i % Math.max(1, Math.floor(a.length / 8)) === 0).map((x) => f1(x.rss / MiB)).join(' ')}`);
    if (r.pool !== null) out.push(`pace max: parser pool ${r.pool.completed} tasks, run mean ${f1(r.pool.runMeanMs)} ms (p99 ${f1(r.pool.runP99Ms)}), queue wait mean ${f1(r.pool.waitMeanMs)} ms (p99 ${f1(r.pool.waitP99Ms)})`);
    if (max.facts.breakdown !== null) out.push(...formatBreakdown(max.facts.breakdown, max.facts.sourceBytes));
  }
  return out;
}
