// Settings precedence (specification, "Project folder and settings"):
// environment → project agent section → project top level → global agent
// section → global top level → default, each value reported with its layer and
// key. Table-driven over several fields of different kinds, in a real Git
// repository: the project is named by a subfolder of a linked worktree and its
// config lives in the main checkout.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { SettingsLayer } from '../protocols/settings.ts';
import { SettingsResolver } from '../src/config/resolve-settings.ts';
import type { SettingName } from '../src/config/settings-fields.ts';
import { settingsWorld, writeConfig } from './helpers/settings.ts';

type FileLayer = Exclude<SettingsLayer, 'env' | 'default'>;
const FILE_LAYERS: readonly FileLayer[] = ['project-agent', 'project', 'global-agent', 'global'];
const ORDER: ReadonlyArray<FileLayer | 'env'> = ['env', ...FILE_LAYERS];

interface Case {
  readonly name: SettingName;
  /** The fragment a layer writes, and the key (without an agent prefix) it is written under. */
  readonly write: (layer: FileLayer, value: unknown) => { fragment: Record<string, unknown>; key: string };
  readonly values: Readonly<Record<FileLayer, unknown>>;
  /** What each value resolves to, when it differs from the value written. */
  readonly resolved?: Readonly<Record<FileLayer, unknown>>;
  readonly env?: { readonly variable: string; readonly text: string; readonly value: unknown };
  readonly fallback: unknown;
}

const plain =
  (key: string) =>
  (_layer: FileLayer, value: unknown) => ({ fragment: { [key]: value }, key });

const CASES: readonly Case[] = [
  { name: 'codexModel', write: plain('codexModel'), values: { 'project-agent': 'pa-model', project: 'p-model', 'global-agent': 'ga-model', global: 'g-model' }, fallback: null },
  {
    name: 'lingerSec',
    write: plain('lingerSec'),
    values: { 'project-agent': 11, project: 12, 'global-agent': 13, global: 14 },
    env: { variable: 'AGENT_BRIDGE_LINGER_SEC', text: '7', value: 7 },
    fallback: 300,
  },
  {
    name: 'name',
    write: plain('name'),
    values: { 'project-agent': 'pa-peer', project: 'p-peer', 'global-agent': 'ga-peer', global: 'g-peer' },
    env: { variable: 'AGENT_BRIDGE_NAME', text: 'env-peer', value: 'env-peer' },
    fallback: null,
  },
  {
    name: 'autoWake',
    write: plain('autoWake'),
    // string forms are the broker's; they must resolve like booleans
    values: { 'project-agent': true, project: 'off', 'global-agent': 'yes', global: false },
    resolved: { 'project-agent': true, project: false, 'global-agent': true, global: false },
    env: { variable: 'AGENT_BRIDGE_AUTO_WAKE', text: 'on', value: true },
    fallback: false,
  },
  {
    name: 'effort.codex',
    write: (_layer, value) => ({ fragment: { effort: { codex: value } }, key: 'effort.codex' }),
    values: { 'project-agent': 'xhigh', project: 'high', 'global-agent': 'medium', global: 'low' },
    fallback: null,
  },
  {
    // native_subagents in the project layers (the specification's alias), codexSubagents in the global ones
    name: 'codexSubagents',
    write: (layer, value) => {
      const key = layer.startsWith('project') ? 'native_subagents' : 'codexSubagents';
      return { fragment: { [key]: value }, key };
    },
    values: { 'project-agent': 3, project: false, 'global-agent': 9, global: 12 },
    resolved: { 'project-agent': 3, project: 0, 'global-agent': 9, global: 12 },
    fallback: 6,
  },
  {
    name: 'delivery',
    write: plain('delivery'),
    values: { 'project-agent': 'channel', project: 'hooks', 'global-agent': 'auto', global: 'channel' },
    env: { variable: 'AGENT_BRIDGE_DELIVERY', text: 'hooks', value: 'hooks' },
    fallback: 'auto',
  },
];

function merge(into: Record<string, unknown>, fragment: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(fragment)) {
    const old = into[key];
    into[key] = typeof old === 'object' && old !== null && typeof value === 'object' && value !== null ? { ...old, ...value } : value;
  }
}

describe('settings precedence', () => {
  for (const c of CASES) {
    it(`${c.name}: every layer wins over the ones below it, and the layer is reported`, () => {
      const world = settingsWorld();
      const layers: ReadonlyArray<FileLayer | 'env'> = c.env === undefined ? FILE_LAYERS : ORDER;
      for (let top = 0; top <= layers.length; top += 1) {
        const present = layers.slice(top);
        const global: Record<string, unknown> = { codex: {} };
        const project: Record<string, unknown> = { codex: {} };
        const keys = new Map<SettingsLayer, string>();
        for (const layer of present) {
          if (layer === 'env') continue;
          const { fragment, key } = c.write(layer, c.values[layer]);
          const file = layer.startsWith('project') ? project : global;
          const agentSection = layer.endsWith('-agent');
          merge(agentSection ? (file.codex as Record<string, unknown>) : file, fragment);
          keys.set(layer, agentSection ? `codex.${key}` : key);
        }
        writeConfig(world.globalFile, global);
        writeConfig(world.projectFile, project);
        const env = present.includes('env') && c.env !== undefined ? { ...world.env, [c.env.variable]: c.env.text } : world.env;
        const settings = new SettingsResolver({ env }).resolve(world.sub, 'codex');
        const got = settings.values[c.name];
        const winner = present[0];
        const what = `${c.name} with layers ${present.join(', ') || 'none'}`;
        if (winner === undefined) {
          assert.deepEqual({ value: got.value, layer: got.layer, key: got.key }, { value: c.fallback, layer: 'default', key: null }, what);
        } else if (winner === 'env') {
          assert.deepEqual({ value: got.value, layer: got.layer, source: got.source }, { value: c.env?.value, layer: 'env', source: c.env?.variable }, what);
        } else {
          const expected = (c.resolved ?? c.values)[winner];
          const file = winner.startsWith('project') ? world.projectFile : world.globalFile;
          assert.deepEqual({ value: got.value, layer: got.layer, key: got.key, source: got.source }, { value: expected, layer: winner, key: keys.get(winner), source: file }, what);
        }
        assert.equal(got.lastGood, false, what);
        assert.deepEqual(settings.problems, [], what);
        assert.equal(settings.project, world.main, 'the subfolder of the linked worktree belongs to the main checkout');
        assert.equal(settings.files.project, world.projectFile);
      }
    });
  }

  it('without an agent no agent section applies, and another agent\'s section never does', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { codexModel: 'g', codex: { codexModel: 'ga' } });
    writeConfig(world.projectFile, { codexModel: 'p', codex: { codexModel: 'pa' } });
    const resolver = new SettingsResolver({ env: world.env });
    assert.equal(resolver.resolve(world.sub, null).values.codexModel.layer, 'project');
    assert.equal(resolver.resolve(world.sub, 'claude').values.codexModel.value, 'p');
    assert.equal(resolver.resolve(world.sub, 'codex').values.codexModel.value, 'pa');
    const noProject = resolver.resolve(null, 'codex');
    assert.deepEqual([noProject.values.codexModel.value, noProject.values.codexModel.layer, noProject.project, noProject.files.project], ['ga', 'global-agent', null, null]);
  });

  it('the specification\'s example, as a project file over a global one, leaves both files byte-identical', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { codexModel: 'gpt-5', effort: 'medium', maxJobs: 4, opencode: { opencodeModel: 'global/model' }, resourceSlots: { gpu: 2 } });
    writeConfig(world.projectFile, { codexModel: 'gpt-6.1-sol', effort: { codex: 'high' }, native_subagents: 4, projectGroups: true, opencode: { opencodeModel: 'provider/model' } });
    const before = [readFileSync(world.globalFile), readFileSync(world.projectFile)];
    const resolver = new SettingsResolver({ env: world.env });
    const codex = resolver.resolve(world.sub, 'codex').values;
    assert.deepEqual(
      [codex.codexModel.value, codex['effort.codex'].value, codex['effort.claude'].value, codex.codexSubagents.value, codex.projectGroups.value, codex.maxJobs.value, codex.resourceSlots.value],
      ['gpt-6.1-sol', 'high', 'medium', 4, true, 4, { gpu: 2 }],
    );
    assert.deepEqual([codex['effort.claude'].layer, codex.codexSubagents.key, codex.maxJobs.layer], ['global', 'native_subagents', 'global']);
    const opencode = resolver.resolve(world.sub, 'opencode').values.opencodeModel;
    assert.deepEqual([opencode.value, opencode.layer], ['provider/model', 'project-agent']);
    assert.deepEqual([readFileSync(world.globalFile), readFileSync(world.projectFile)], before, 'neither file is rewritten');
  });

  it('a deleted project file falls back to the global value, then to the default', () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { lingerSec: 40 });
    writeConfig(world.projectFile, { lingerSec: 20 });
    const resolver = new SettingsResolver({ env: world.env });
    assert.deepEqual(pick(resolver, world.sub), [20, 'project']);
    rmSync(world.projectFile);
    assert.deepEqual(pick(resolver, world.sub), [40, 'global']);
    rmSync(world.globalFile);
    assert.deepEqual(pick(resolver, world.sub), [300, 'default']);
    writeConfig(world.projectFile, { lingerSec: 25 });
    assert.deepEqual(pick(resolver, world.sub), [25, 'project'], 'a new project file applies at once');
  });
});

function pick(resolver: SettingsResolver, project: string): [unknown, SettingsLayer] {
  const value = resolver.resolve(project, null).values.lingerSec;
  return [value.value, value.layer];
}
