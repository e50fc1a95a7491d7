import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { HANDSHAKE_PROBE_FIRST_MS } from "./defaults.js";

/**
 * While a stdio server has not answered `initialize`, writes the protocol's
 * `ping` to it after {@link HANDSHAKE_PROBE_FIRST_MS}, then after twice as
 * long each time, until the returned function stops it. The write is the
 * point: a server that read `initialize`, then closed its stdin and lives
 * on, is seen only when something is written to it (the pipe breaks, and
 * the transport ends), and before the answer the client writes nothing
 * else, so the connect would wait out `connectTimeoutMs`. The protocol
 * allows `ping` before `initialize` is answered; the answer, to an id the
 * client's own requests never use, is dropped by the SDK's client, and a
 * failed write is the transport's to report.
 */
export function probeUnansweredHandshake(transport: Transport): () => void {
  let probes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      probes++;
      transport.send({ jsonrpc: "2.0", id: `turnkit-handshake-probe-${probes}`, method: "ping" }).catch(() => {});
      schedule(delayMs * 2);
    }, delayMs);
    timer.unref?.();
  };
  schedule(HANDSHAKE_PROBE_FIRST_MS);
  return () => clearTimeout(timer);
}
