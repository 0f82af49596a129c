// The yardstick for `npm run bench -- mllp`: a plain Node MLLP server that answers every frame at once with
// an AA (sender and receiver swapped, MSA-2 = MSH-10), keeping and converting nothing. What the loopback,
// the client and the framing cost on this machine. Prints its port on stdout.
import { createServer } from "node:net";

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf(0x1c);
      if (end < 0 || end + 1 >= buffer.length) break;
      const text = buffer.subarray(1, end).toString("utf8");
      buffer = buffer.subarray(end + 2);
      const msh = text.slice(0, text.search(/\r|\n|$/)).split("|");
      const ack = `MSH|^~\\&|${msh[4]}|${msh[5]}|${msh[2]}|${msh[3]}|${msh[6]}||ACK|A${msh[9]}|P|${msh[11]}\rMSA|AA|${msh[9]}\r`;
      socket.write(Buffer.concat([Buffer.of(0x0b), Buffer.from(ack), Buffer.of(0x1c, 0x0d)]));
    }
  });
  socket.on("error", () => {});
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
