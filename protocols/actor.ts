// The shape every actor shares (name, handle, stop) and the typed request/
// reply helper. A protocol is a discriminated union of requests plus a map
// from request type to reply type; `Reply<P, M>` looks the reply up, so a
// caller gets the right reply type for the message it sent.

export interface Message {
  readonly type: string;
}

export type ReplyMap<M extends Message> = { [K in M['type']]: unknown };

export type Reply<R extends ReplyMap<M>, M extends Message, T extends M> = R[T['type']];

export interface Actor<M extends Message, R extends ReplyMap<M>> {
  readonly name: string;
  handle<T extends M>(message: T): Reply<R, M, T> | Promise<Reply<R, M, T>>;
  stop(): Promise<void>;
}
