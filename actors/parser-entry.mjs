// parser-entry.cjs (the file piscina loads) imports this in each parser thread:
// it registers the TypeScript loader for the thread and re-exports the parser
// actor's handler.
import { register } from 'tsx/esm/api';

register();
const actor = await import('./parser-actor.ts');
export default actor.default;
