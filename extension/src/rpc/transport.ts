// The gRPC transport to the daemon: HTTP/2 over its Unix socket, with the bearer token on
// every call and an optional trace of each RPC.

import * as net from "node:net";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { socketPath } from "../supervisor/handshake";

export interface DaemonConnection {
  readonly transport: Transport;
  /** close drops the HTTP/2 connection and every call on it. */
  close(): void;
}

/** authInterceptor adds `authorization: Bearer <token>` to every call. */
export function authInterceptor(token: string): Interceptor {
  return (next) => (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
}

/** traceInterceptor reports each call's method, duration and outcome. */
export function traceInterceptor(trace: (line: string) => void, enabled: () => boolean): Interceptor {
  return (next) => async (req) => {
    if (!enabled()) return next(req);
    const name = `${req.service.typeName}/${req.method.name}`;
    const t0 = Date.now();
    trace(`→ ${name}${req.stream ? " (stream)" : ""}`);
    try {
      const res = await next(req);
      trace(`← ${name} ${Date.now() - t0} ms`);
      return res;
    } catch (e) {
      trace(`✗ ${name} ${Date.now() - t0} ms: ${(e as Error).message}`);
      throw e;
    }
  };
}

/**
 * maxMessageBytes bounds one gRPC message either way, as the daemon does (server/rpc/limits.go):
 * a 5 MB file in a diff or a tool ask is one message, so the limit sits far above what tools
 * accept while still refusing a runaway message with a clear ResourceExhausted error.
 */
export const maxMessageBytes = 64 * 1024 * 1024;

/** connectDaemon builds a transport for a handshake address ("unix:///…" or "127.0.0.1:N"). */
export function connectDaemon(address: string, token: string, interceptors: Interceptor[] = []): DaemonConnection {
  const where = socketPath(address);
  const baseUrl = where.kind === "unix" ? "http://localhost" : `http://${where.hostPort}`;
  const sessionOptions = where.kind === "unix" ? { createConnection: () => net.connect(where.path) } : {};
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 30_000, pingIdleConnection: false }, sessionOptions);
  const transport = createGrpcTransport({
    baseUrl,
    sessionManager,
    readMaxBytes: maxMessageBytes,
    writeMaxBytes: maxMessageBytes,
    interceptors: [authInterceptor(token), ...interceptors],
  });
  return { transport, close: () => sessionManager.abort() };
}
