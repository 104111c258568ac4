// comlink ships its Node adapter without NodeNext-resolvable types.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  interface NodeEndpoint {
    postMessage(message: unknown, transfer?: readonly unknown[]): void;
    on(type: string, listener: (...args: unknown[]) => void): void;
    off(type: string, listener: (...args: unknown[]) => void): void;
    start?: () => void;
  }
  export default function nodeEndpoint(endpoint: NodeEndpoint): Endpoint;
}
