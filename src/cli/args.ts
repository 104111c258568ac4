// Command-line parsing for one subcommand: node:util parseArgs in strict
// mode, so an unknown flag or a missing value is a usage error with a precise
// message, never silently ignored.

import { parseArgs } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: false }>;

export interface Parsed<F extends FlagSpec> {
  readonly flags: { [K in keyof F]?: F[K]['type'] extends 'string' ? string : boolean };
  readonly positionals: string[];
}

export function parse<F extends FlagSpec>(argv: readonly string[], flags: F, positionals: { min: number; max: number; names: string }): Parsed<F> {
  let result;
  try {
    result = parseArgs({ args: [...argv], options: flags, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const count = result.positionals.length;
  if (count < positionals.min) throw new UsageError(`missing ${positionals.names}`);
  if (count > positionals.max) throw new UsageError(`unexpected argument: ${result.positionals[positionals.max]}`);
  return { flags: result.values as Parsed<F>['flags'], positionals: result.positionals };
}

export function intFlag(value: string | undefined, name: string, range: { min: number; max: number }): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < range.min || n > range.max) throw new UsageError(`--${name} must be between ${range.min} and ${range.max}, got ${n}`);
  return n;
}

export function choiceFlag<T extends string>(value: string | undefined, name: string, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got "${value}"`);
  return value as T;
}
