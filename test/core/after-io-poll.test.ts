/**
 * afterIoPoll: settles only after the event loop has read the sockets once, so a request
 * (or a /healthz probe) whose bytes are waiting is read between the two halves of a long job.
 * A real socket with bytes waiting in the kernel: its `data` event comes first.
 */
import net from "node:net";
import { afterIoPoll } from "../../src/core/after-io-poll";

/** A connected pair whose server side has not read yet (pauseOnConnect) and has `bytes` waiting. */
async function socketWithBytesWaiting(bytes: string): Promise<{ server: net.Server; client: net.Socket; accepted: net.Socket }> {
  const server = net.createServer({ pauseOnConnect: true });
  const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", resolve));
  await new Promise<void>((resolve, reject) => client.write(bytes, (e) => (e ? reject(e) : resolve())));
  return { server, client, accepted: await accepted };
}

describe("afterIoPoll", () => {
  it("settles after the bytes waiting on a socket were read", async () => {
    const { server, client, accepted } = await socketWithBytesWaiting("probe");
    try {
      const order: string[] = [];
      accepted.on("data", () => order.push("socket read"));
      accepted.resume();
      await afterIoPoll();
      order.push("settled");
      expect(order).toEqual(["socket read", "settled"]);
    } finally {
      client.destroy();
      accepted.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
