#!/usr/bin/env node
// A minimal outside bot for node (20: run with --experimental-websocket; 22 and later
// have WebSocket built in), written from docs/protocol.md alone. It plays a bot
// account's seat at a live table: whenever the game awaits its seat (answer.table.
// awaiting), it sends one legal command, preferring the moves that let the game go on.
//
//   node --experimental-websocket examples/remote_bot.js http://127.0.0.1:8000 TABLE_ID TOKEN
//
// It sends each command with the version it saw and a ref, asks for the whole view
// again after a gap, waits out the allowances (retry_after), opens a dropped connection
// again (0.5, 1, 2 ... 8 s), and stops on the handshake refusals that reconnecting does
// not mend. It prints the result and exits 0 when the game ends.

"use strict";

const PREFERRED = ["decline_offer", "end_trading", "end_planting", "plant_from_hand",
  "plant_card", "discard_card", "accept_offer", "harvest"];
const FINAL = new Set(["bad_table_id", "bad_token", "bad_authorization", "private_table",
  "no_table", "bad_origin", "no_socket", "missing_scope"]);
const DELAYS = [500, 1000, 2000, 4000, 8000];

function socketUrl(server, tableId) {
  const url = new URL(server.includes("//") ? server : `http://${server}`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `/ws/tables/${tableId}/`;
  url.search = "?html=0"; // a program reads the data, never the drawing
  return url.toString();
}

// One legal command the game awaits from this seat, or null.
function choose(frame) {
  const table = frame.answer.table;
  if (frame.finished || frame.seat === null || !table.awaiting.includes(frame.seat)) {
    return null;
  }
  const commands = frame.legal.filter((move) => move.kind !== "offer_shape");
  for (const kind of PREFERRED) {
    const move = commands.find((m) => m.kind === kind);
    if (move) return move;
  }
  return commands.length ? commands[0] : null;
}

class Bot {
  constructor(server, tableId, token) {
    this.url = socketUrl(server, tableId);
    this.token = token;
    this.version = null; // the version this connection holds
    this.answered = -1; // the version last answered
    this.ref = 0;
    this.pausedUntil = 0;
    this.failures = 0;
    this.lastRefusal = null;
    this.sent = 0;
    this.reflected = 0;
  }

  connect() {
    return new Promise((resolve, reject) => {
      this.done = { resolve, reject };
      this.open();
    });
  }

  open() {
    this.version = null;
    this.socket = new WebSocket(this.url, { headers: { Authorization: `Bearer ${this.token}` } });
    this.socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    this.socket.onclose = (event) => this.closed(event.code);
    this.socket.onerror = () => {}; // onclose follows
  }

  send(frame) {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) {
      setTimeout(() => this.send(frame), wait);
      return;
    }
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  receive(frame) {
    this.failures = 0;
    if (frame.type === "error") {
      this.lastRefusal = frame;
      if (frame.retry_after) this.pausedUntil = Date.now() + frame.retry_after * 1000;
      console.error(`refused (${frame.code}): ${frame.reason}`);
      if (frame.code === "illegal") { // look again, and answer what is seen then
        this.answered = -1;
        this.send({ type: "sync" });
      }
      return;
    }
    if (frame.type === "closed") {
      this.finish(new Error("the table was closed"));
      return;
    }
    if (frame.type !== "state") return; // waiting, room, pong, left: nothing to do
    if (frame.ref !== undefined) this.reflected += 1;
    const gap = this.version !== null && frame.since !== this.version &&
      frame.since !== frame.version;
    this.version = frame.version;
    if (gap) this.send({ type: "sync" });
    if (frame.finished) {
      this.finish(null, frame.answer.table.result);
      return;
    }
    const command = choose(frame);
    if (command && this.answered !== frame.version) {
      this.answered = frame.version;
      this.ref += 1;
      this.sent += 1;
      this.send({ type: "command", ref: this.ref, version: frame.version, command });
    }
  }

  closed(code) {
    if (!this.done) return;
    const refusal = this.lastRefusal;
    if (refusal && FINAL.has(refusal.code) && code >= 4400) {
      this.finish(new Error(`refused: ${refusal.code} (${code})`));
      return;
    }
    const delay = DELAYS[Math.min(this.failures, DELAYS.length - 1)];
    this.failures += 1;
    setTimeout(() => this.open(), Math.max(delay, this.pausedUntil - Date.now()));
  }

  finish(error, result) {
    const done = this.done;
    this.done = null;
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close();
    if (error) done.reject(error);
    else done.resolve(result);
  }
}

async function main() {
  const [server, tableId, token] = process.argv.slice(2);
  if (!token) {
    console.error("usage: node examples/remote_bot.js SERVER TABLE_ID TOKEN");
    process.exit(2);
  }
  const bot = new Bot(server, tableId, token);
  try {
    const result = await bot.connect();
    console.log(JSON.stringify({ result, sent: bot.sent, reflected: bot.reflected }));
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}

main();
