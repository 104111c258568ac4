// Settings validation: native_subagents forms, invalid values (an error naming
// file, field and reason; the last good value or the next layer stays in
// force), unknown fields and fields a layer may not set (warnings, ignored),
// environment variables, the project whose folder is the bridge home, live
// reload, and the ingestion switch and doctor's check on the same reader.

import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryError } from '../protocols/errors.ts';
import type { ConfigProblem } from '../protocols/settings.ts';
import { validateConfigFile } from '../src/config/config-file.ts';
import { type ResolvedSettings, SettingsResolver } from '../src/config/resolve-settings.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { SettingsWatcher, parseConfig } from '../src/config/settings.ts';
import { dashboardSettings } from '../src/dashboard/launch.ts';
import { tempDir } from './helpers/home.ts';
import { settingsWorld, writeConfig } from './helpers/settings.ts';

function only(problems: readonly ConfigProblem[], severity: ConfigProblem['severity']): ConfigProblem[] {
  return problems.filter((p) => p.severity === severity);
}

describe('native_subagents', () => {
  const forms: ReadonlyArray<[unknown, number]> = [
    [true, 6],
    [false, 0],
    [4, 4],
    ['4', 4],
    [0, 0],
    [32, 32],
  ];
  for (const [form, expected] of forms) {
    it(`${JSON.stringify(form)} sets codexSubagents to ${expected}, at the project top level and in an agent section`, () => {
      const world = settingsWorld();
      writeConfig(world.globalFile, { codexSubagents: 20 });
      writeConfig(world.projectFile, { native_subagents: form });
      const top = new SettingsResolver({ env: world.env }).resolve(world.sub, 'codex');
      assert.deepEqual([top.values.codexSubagents.value, top.values.codexSubagents.layer, top.values.codexSubagents.key], [expected, 'project', 'native_subagents']);
      writeConfig(world.projectFile, { native_subagents: 1, codex: { native_subagents: form } });
      const section = new SettingsResolver({ env: world.env }).resolve(world.sub, 'codex');
      assert.deepEqual([section.values.codexSubagents.value, section.values.codexSubagents.layer, section.values.codexSubagents.key], [expected, 'project-agent', 'codex.native_subagents']);
      assert.deepEqual(top.problems.concat(section.problems), []);
    });
  }

  for (const bad of [33, -1, 2.5, 'lots', null, { n: 1 }]) {
    it(`${JSON.stringify(bad)} is an error naming the field; the global value stays in force`, () => {
      const world = settingsWorld();
      writeConfig(world.globalFile, { codexSubagents: 20 });
      writeConfig(world.projectFile, { native_subagents: bad });
      const settings = new SettingsResolver({ env: world.env }).resolve(world.sub, null);
      assert.deepEqual([settings.values.codexSubagents.value, settings.values.codexSubagents.layer], [20, 'global']);
      const [error] = only(settings.problems, 'error');
      assert.equal(error?.file, world.projectFile);
      assert.equal(error?.field, 'native_subagents');
      assert.match(error?.reason ?? '', /^must be true, false \(disables\) or a whole number from 0 to 32, got /);
    });
  }

  it('codexSubagents in the same section wins over native_subagents, with a warning', () => {
    const world = settingsWorld();
    writeConfig(world.projectFile, { native_subagents: false, codexSubagents: 5 });
    const settings = new SettingsResolver({ env: world.env }).resolve(world.sub, null);
    assert.deepEqual([settings.values.codexSubagents.value, settings.values.codexSubagents.key], [5, 'codexSubagents']);
    assert.deepEqual(
      settings.problems.map((p) => [p.severity, p.field]),
      [['warning', 'native_subagents']],
    );
  });
});

describe('invalid values', () => {
  const cases: ReadonlyArray<{ file: Record<string, unknown>; field: string; reason: RegExp; setting: 'lingerSec' | 'maxHops' | 'delivery' | 'codexModel' | 'effort.codex' | 'autoWake' }> = [
    { file: { lingerSec: 'soon' }, field: 'lingerSec', reason: /whole number of seconds from 0 to 3600.*got "soon"/, setting: 'lingerSec' },
    { file: { lingerSec: 3601 }, field: 'lingerSec', reason: /got 3601$/, setting: 'lingerSec' },
    { file: { codex: { maxHops: 101 } }, field: 'codex.maxHops', reason: /from 0 to 100, got 101/, setting: 'maxHops' },
    { file: { delivery: 'push' }, field: 'delivery', reason: /one of auto, channel, hooks, got "push"/, setting: 'delivery' },
    { file: { codexModel: 'gpt 6; rm -rf' }, field: 'codexModel', reason: /without spaces, quotes or shell characters/, setting: 'codexModel' },
    { file: { effort: { codex: 'very high' } }, field: 'effort.codex', reason: /effort level.*got "very high"/, setting: 'effort.codex' },
    { file: { effort: 5 }, field: 'effort', reason: /must be an effort level for every agent/, setting: 'effort.codex' },
    { file: { autoWake: 'maybe' }, field: 'autoWake', reason: /true or false, got "maybe"/, setting: 'autoWake' },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.file)}: an error naming file, field and reason; the next layer's value is in force`, () => {
      const world = settingsWorld();
      const global = { lingerSec: 40, maxHops: 9, delivery: 'hooks', codexModel: 'g-model', effort: { codex: 'low' }, autoWake: true };
      writeConfig(world.globalFile, global);
      writeConfig(world.projectFile, { ...c.file, claudeModel: 'still-valid' });
      const settings = new SettingsResolver({ env: world.env }).resolve(world.sub, 'codex');
      const errors = only(settings.problems, 'error');
      assert.equal(errors.length, 1, JSON.stringify(settings.problems));
      assert.deepEqual([errors[0]?.file, errors[0]?.field], [world.projectFile, c.field]);
      assert.match(errors[0]?.reason ?? '', c.reason);
      assert.equal(settings.values[c.setting].layer, 'global');
      assert.equal(settings.values.claudeModel.value, 'still-valid', 'the other fields of the file stay in force');
    });
  }

  it('a section that is not an object, and a global history switch that is not a boolean', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { codex: 'fast', history: { ingest: 'nope', migration: { ioBytesPerSecond: 10 }, dashboard: 7433 }, resourceSlots: { gpu: 0 } });
    const settings = new SettingsResolver({ env: world.env }).resolve(null, 'codex');
    assert.deepEqual(
      settings.problems.map((p) => [p.severity, p.field]),
      [['error', 'codex'], ['error', 'history.ingest'], ['error', 'history.migration.ioBytesPerSecond'], ['error', 'history.dashboard'], ['error', 'resourceSlots']],
    );
    assert.deepEqual([settings.values['history.ingest'].value, settings.values['history.migration.ioBytesPerSecond'].value, settings.values.resourceSlots.value], [true, 8 * 1024 * 1024, {}]);
  });

  for (const [what, text, reason] of [
    ['not JSON', '{"lingerSec": 10,,}', /^not valid JSON: .*\(line 1, column 18\)$/],
    ['an array', '[1, 2]', /^must be a JSON object of settings, got \[1,2\]$/],
    ['empty', '', /^is empty/],
  ] as const) {
    it(`a project file that is ${what}: one error for the whole file, the global values are in force`, () => {
      const world = settingsWorld();
      writeConfig(world.globalFile, { lingerSec: 40 });
      writeConfig(world.projectFile, text);
      const settings = new SettingsResolver({ env: world.env }).resolve(world.sub, null);
      assert.equal(settings.problems.length, 1);
      assert.deepEqual([settings.problems[0]?.severity, settings.problems[0]?.file, settings.problems[0]?.field], ['error', world.projectFile, '']);
      assert.match(settings.problems[0]?.reason ?? '', reason);
      assert.deepEqual([settings.values.lingerSec.value, settings.values.lingerSec.layer], [40, 'global']);
    });
  }

  it('in a running resolver the last good value of the file stays in force, field by field, until the file is fixed', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { lingerSec: 40, codexModel: 'g-model' });
    writeConfig(world.projectFile, { lingerSec: 10, codexModel: 'p-model' });
    const resolver = new SettingsResolver({ env: world.env });
    const view = (s: ResolvedSettings): unknown[] => [s.values.lingerSec.value, s.values.lingerSec.layer, s.values.lingerSec.lastGood, s.values.codexModel.value, s.values.codexModel.lastGood];
    assert.deepEqual(view(resolver.resolve(world.sub, null)), [10, 'project', false, 'p-model', false]);

    writeConfig(world.projectFile, { lingerSec: 'soon', codexModel: 'p-model-2' });
    let settings = resolver.resolve(world.sub, null);
    assert.deepEqual(view(settings), [10, 'project', true, 'p-model-2', false], 'the invalid field keeps its last good value; the valid one applies');
    assert.deepEqual(only(settings.problems, 'error').map((p) => p.field), ['lingerSec']);

    writeConfig(world.projectFile, '{ "lingerSec": 12, ');
    settings = resolver.resolve(world.sub, null);
    assert.deepEqual(view(settings), [10, 'project', true, 'p-model-2', true], 'a broken file keeps all of its last good values');

    writeConfig(world.projectFile, { lingerSec: 12 });
    settings = resolver.resolve(world.sub, null);
    assert.deepEqual(view(settings), [12, 'project', false, 'g-model', false], 'fixed: its values apply, a removed field falls back to global');
    assert.deepEqual(settings.problems, []);
  });
});

describe('unknown fields and fields a layer may not set', () => {
  it('unknown fields are warnings and change nothing', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, {
      colour: 'blue',
      codex: { shade: 1 },
      effort: { cobol: 'high', codex: 'high' },
      history: { ingest: true, budget: 1, migration: { speed: 1 }, dashboard: { enabled: false, theme: 'dark' } },
      version: 2,
    });
    const settings = new SettingsResolver({ env: world.env }).resolve(null, 'codex');
    assert.deepEqual(
      settings.problems.map((p) => [p.severity, p.file, p.field]),
      [
        ['warning', world.globalFile, 'colour'],
        ['warning', world.globalFile, 'codex.shade'],
        ['warning', world.globalFile, 'effort.cobol'],
        ['warning', world.globalFile, 'history.budget'],
        ['warning', world.globalFile, 'history.migration.speed'],
        ['warning', world.globalFile, 'history.dashboard.theme'],
      ],
    );
    assert.equal(settings.values['effort.codex'].value, 'high');
    assert.deepEqual([settings.values['history.dashboard.enabled'].value, settings.values['history.dashboard.enabled'].layer], [false, 'global']);
    assert.equal(settings.values['history.ingest'].layer, 'global');
  });

  it('a project cannot set shared machine resource slots, the history switches or global-only broker fields: warned and ignored', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { resourceSlots: { gpu: 2 }, maxJobs: 4, codexSandbox: 'workspace-write', history: { ingest: true } });
    writeConfig(world.projectFile, { resourceSlots: { gpu: 9 }, maxJobs: 40, codexSandbox: 'danger-full-access', history: { ingest: false }, codex: { resourceSlots: { gpu: 7 } } });
    const settings = new SettingsResolver({ env: world.env }).resolve(world.sub, 'codex');
    const warnings = only(settings.problems, 'warning');
    assert.deepEqual(warnings.map((p) => [p.file, p.field]), [
      [world.projectFile, 'resourceSlots'],
      [world.projectFile, 'maxJobs'],
      [world.projectFile, 'codexSandbox'],
      [world.projectFile, 'history'],
      [world.projectFile, 'codex.resourceSlots'],
    ]);
    assert.match(warnings[0]?.reason ?? '', /resource-slot capacities are global/);
    assert.match(warnings[1]?.reason ?? '', /a project config may set only .*codexModel.*native_subagents/);
    assert.deepEqual(only(settings.problems, 'error'), []);
    const v = settings.values;
    assert.deepEqual([v.resourceSlots.value, v.maxJobs.value, v.codexSandbox.value, v['history.ingest'].value], [{ gpu: 2 }, 4, 'workspace-write', true]);
    assert.deepEqual([v.resourceSlots.layer, v.maxJobs.layer, v.codexSandbox.layer, v['history.ingest'].layer], ['global', 'global', 'global', 'global']);
  });

  it('resource slots in a global agent section are ignored with a warning: capacities are the same for every agent', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { resourceSlots: { gpu: 2 }, claude: { resourceSlots: { gpu: 8 }, history: { ingest: false } } });
    const settings = new SettingsResolver({ env: world.env }).resolve(null, 'claude');
    assert.deepEqual(settings.problems.map((p) => [p.severity, p.field]), [['warning', 'claude.resourceSlots'], ['warning', 'claude.history']]);
    assert.deepEqual([settings.values.resourceSlots.value, settings.values['history.ingest'].value], [{ gpu: 2 }, true]);
  });

  it('a project whose .agent-bridge folder is the bridge home has no project layer of its own', () => {
    const home = tempDir('abh-settings-home-');
    writeConfig(join(home, '.agent-bridge', 'config.json'), { resourceSlots: { gpu: 1 }, lingerSec: 33 });
    const settings = new SettingsResolver({ env: { HOME: home } }).resolve(home, null);
    assert.equal(settings.files.project, null);
    assert.deepEqual([settings.values.lingerSec.layer, settings.problems], ['global', []]);
  });
});

describe('environment variables', () => {
  it('an invalid variable is an error naming it; the config value stays in force', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { maxHops: 9, history: { ingest: false } });
    const settings = new SettingsResolver({ env: { ...world.env, AGENT_BRIDGE_MAX_HOPS: 'many', AGENT_BRIDGE_HISTORY_INGEST: 'maybe' } }).resolve(null, null);
    assert.deepEqual(settings.problems.map((p) => [p.severity, p.file, p.field]), [
      ['error', 'environment', 'AGENT_BRIDGE_MAX_HOPS'],
      ['warning', 'environment', 'AGENT_BRIDGE_HISTORY_INGEST'],
    ]);
    assert.deepEqual([settings.values.maxHops.value, settings.values.maxHops.layer, settings.values['history.ingest'].layer], [9, 'global', 'global']);
  });

  it('AGENT_BRIDGE_HISTORY_INGEST=0 switches ingestion off over the config; true leaves the config in charge', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { history: { ingest: false } });
    const off = new SettingsResolver({ env: { ...world.env, AGENT_BRIDGE_HISTORY_INGEST: '0' } }).resolve(null, null).values['history.ingest'];
    assert.deepEqual([off.value, off.layer, off.source], [false, 'env', 'AGENT_BRIDGE_HISTORY_INGEST']);
    const on = new SettingsResolver({ env: { ...world.env, AGENT_BRIDGE_HISTORY_INGEST: 'true' } }).resolve(null, null);
    assert.deepEqual([on.values['history.ingest'].value, on.values['history.ingest'].layer, on.problems], [false, 'global', []]);
  });
});

describe('answers are shared', () => {
  it('the same frozen answer while nothing changes; a new one when the environment or a file does', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { autoApproveTools: ['fs.read'], maxHops: 9 });
    const env: NodeJS.ProcessEnv = { ...world.env };
    const resolver = new SettingsResolver({ env });
    const first = resolver.resolve(world.sub, 'codex');
    assert.equal(resolver.resolve(world.sub, 'codex'), first);
    assert.throws(() => (first.values.autoApproveTools.value as string[]).push('x'), TypeError);
    assert.throws(() => Object.assign(first.values, { maxHops: null }), TypeError);
    env.AGENT_BRIDGE_MAX_HOPS = '2';
    assert.deepEqual([resolver.resolve(world.sub, 'codex').values.maxHops.value, resolver.resolve(world.sub, 'codex').values.maxHops.layer], [2, 'env']);
    writeConfig(world.globalFile, { autoApproveTools: 'fs.read, fs.write' });
    assert.deepEqual(resolver.resolve(world.sub, 'codex').values.autoApproveTools.value, ['fs.read', 'fs.write']);
  });
});

describe('live reload', () => {
  async function next(queue: ResolvedSettings[], count: number): Promise<ResolvedSettings> {
    const deadline = Date.now() + 10_000;
    while (queue.length < count) {
      if (Date.now() > deadline) assert.fail(`no change was reported (${queue.length} of ${count})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return queue[count - 1] as ResolvedSettings;
  }

  it('watch reports edits of either file, a replaced file, a deleted one, and a project whose file appears later', async () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { codexModel: 'g-1' });
    const seen: ResolvedSettings[] = [];
    const stop = new SettingsResolver({ env: world.env, pollMs: 20 }).watch(world.sub, 'codex', (s) => seen.push(s));
    try {
      assert.equal((await next(seen, 1)).values.codexModel.value, 'g-1');
      writeConfig(world.projectFile, { codex: { codexModel: 'pa-1' } });
      assert.deepEqual([(await next(seen, 2)).values.codexModel.value, seen[1]?.values.codexModel.layer], ['pa-1', 'project-agent']);
      // an editor that writes a new file and renames it over the old one
      writeFileSync(`${world.projectFile}.tmp`, JSON.stringify({ codexModel: 'p-2' }));
      renameSync(`${world.projectFile}.tmp`, world.projectFile);
      assert.deepEqual([(await next(seen, 3)).values.codexModel.value, seen[2]?.values.codexModel.layer], ['p-2', 'project']);
      rmSync(world.projectFile);
      assert.deepEqual([(await next(seen, 4)).values.codexModel.value, seen[3]?.values.codexModel.layer], ['g-1', 'global']);
      writeConfig(world.globalFile, { codexModel: 'g-22' });
      assert.equal((await next(seen, 5)).values.codexModel.value, 'g-22');
    } finally {
      stop();
    }
  });
});

describe('the ingestion switch and doctor\'s check read the same schema', () => {
  it('SettingsWatcher: an unrelated invalid field leaves history.ingest in force; a broken file keeps the last good switch', () => {
    const dir = tempDir('abh-settings-switch-');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    const watcher = new SettingsWatcher(path);
    assert.deepEqual([watcher.read().settings.ingest, watcher.read().problems], [true, []], 'no file: the defaults');
    writeConfig(path, { history: { ingest: false, migration: { ioBytesPerSecond: 2_000_000 }, dashboard: { port: 0, host: '::1', enabled: 'nope' } }, lingerSec: 'soon' });
    const read = watcher.read();
    assert.deepEqual(read.settings, { ingest: false, migrationIoBytesPerSecond: 2_000_000, dashboard: { enabled: true, port: 0, host: '::1' } });
    assert.deepEqual(read.problems, [
      { severity: 'error', file: path, field: 'history.dashboard.enabled', reason: 'must be true or false, got "nope"' },
      { severity: 'error', file: path, field: 'lingerSec', reason: 'must be a whole number of seconds from 0 to 3600 (0 disables), got "soon"' },
    ]);
    writeConfig(path, '{"history": {"ingest": tru');
    assert.deepEqual([watcher.read().settings.ingest, watcher.read().problems.length], [false, 1], 'last good switch kept');
    writeConfig(path, { history: { ingest: true } });
    assert.deepEqual([watcher.read().settings.ingest, watcher.read().problems], [true, []]);
  });

  it('the dashboard\'s settings stay in force next to an unrelated invalid field', () => {
    const home = tempDir('abh-settings-dashboard-');
    const paths = resolvePaths({ HOME: home });
    writeConfig(paths.configJson, { history: { dashboard: { port: 0, host: 'localhost' } }, lingerSec: 'soon' });
    assert.deepEqual(dashboardSettings(paths), { enabled: true, port: 0, host: 'localhost' });
  });

  it('parseConfig throws CONFIG_INVALID naming file and field; validateConfigFile lists every problem', () => {
    assert.deepEqual(parseConfig('{"history": {"ingest": false}, "colour": 1}', '/c.json'), { ingest: false, migrationIoBytesPerSecond: null, dashboard: { enabled: true, port: null, host: null } });
    assert.throws(
      () => parseConfig('{"history": {"ingest": "off!"}}', '/c.json'),
      (error: unknown) => error instanceof HistoryError && error.code === 'CONFIG_INVALID' && error.message === '/c.json: history.ingest: must be true or false, got "off!"',
    );
    const dir = tempDir('abh-settings-doctor-');
    const path = join(dir, 'config.json');
    assert.deepEqual(validateConfigFile(path), [], 'an absent file has no problems');
    writeConfig(path, { lingerSec: -1, colour: 1 });
    assert.deepEqual(validateConfigFile(path).map((p) => [p.severity, p.field]), [['error', 'lingerSec'], ['warning', 'colour']]);
    writeConfig(path, { resourceSlots: { gpu: 1 } });
    assert.deepEqual(validateConfigFile(path, 'project').map((p) => [p.severity, p.field]), [['warning', 'resourceSlots']]);
  });
});
