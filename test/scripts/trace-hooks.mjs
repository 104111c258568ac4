// Module resolution tracer for the main thread (registered with
// module.register): reports every resolved URL over a MessagePort. Loader
// hooks registered this way do not apply to worker threads (Node 20), so the
// list is exactly what the main thread loaded.
let port;
export async function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}
