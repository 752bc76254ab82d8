/* The live table's connection (docs/protocol.md): a websocket to /ws/tables/<id>/.
 *
 * Each `state` frame carries the table answer, drawn by the table component
 * (static/js/table.js, the replay viewer's): the whole drawing on connecting and on
 * `sync`, else only its regions that changed since the previous frame; the seat's legal
 * moves, the move log's new lines, the game's version and head hash. A frame that does not follow the version
 * this page has (`since` is not it) means one was missed: the page asks for its view
 * again (`sync`), and so it does when nothing came back for QUIET_MS after it sent a
 * command (a frame lost on the way, or a server that restarted between). A dropped
 * connection is opened again, and the server rebuilds the view from the store. An `error` frame (a move refused, with the engine's reason) is
 * shown to this player only. The waiting room (data-room) reloads when the game starts,
 * when its seats change (a `room` frame, or a `waiting` frame whose `seats` digest is not
 * the one the page was drawn with: a change made before the socket connected), and
 * shows its closed notice, connecting no more, on a `closed` frame (the table is gone).
 * A `left` frame (this player left the game, or stayed away too long: a bot plays the
 * seat) ends this page's moves; the state frames that follow are a spectator's.
 */
(function () {
  "use strict";

  const QUIET_MS = 2000;  // as the services tests' clients: silence this long → sync

  function start(root) {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.socket;
    const room = root.dataset.room === "1";
    const words = room ? {} : JSON.parse(document.getElementById("live-words").textContent);
    const box = root.querySelector(".live-table");
    const status = root.querySelector(".live-status");
    const error = root.querySelector(".live-error");
    const log = root.querySelector(".live-log");
    const end = root.querySelector(".live-end");
    let version = null;
    let socket = null;
    let retry = 500;
    let ref = 0;
    let quiet = null;  // the timer started by a command sent, stopped by any answer
    let closed = false;  // the table is gone: nothing to connect to again
    let submitting = false;  // a form of the page was sent: its answer is on the way
    if (room) root.addEventListener("submit", () => { submitting = true; });

    function again() {  // the room drawn again by the server, unless the page is leaving
      if (!submitting) location.reload();
    }

    function onClosed() {
      closed = true;
      const notice = root.querySelector(".room-closed");
      if (!notice || submitting) return;
      for (const child of root.children) child.hidden = child !== notice;
      notice.hidden = false;
    }
    const table = box ? window.BohnanzaTable.mount(box, { words }) : null;

    function send(frame) {
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
    }

    if (table && root.dataset.seat !== "") {
      table.play({
        moves: root.querySelector(".live-moves"),
        words,
        send: (command) => {
          ref += 1;
          const c = Object.assign({}, command);
          send({ type: "command", ref, version, command: c });
          clearTimeout(quiet);
          quiet = setTimeout(() => { quiet = null; send({ type: "sync" }); }, QUIET_MS);
        },
      });
    }

    function onState(frame) {
      if (version !== null && frame.since !== version && frame.version > version && frame.since !== frame.version) {
        send({ type: "sync" });
        return;
      }
      // Older than ours, or the move to the version we hold (from a whole frame) again.
      if (version !== null && (frame.version < version || (frame.version === version && frame.since !== version))) return;
      if (!table.show(frame.answer)) {  // regions this page does not have: start again
        send({ type: "sync" });
        return;
      }
      version = frame.version;
      table.setMoves(frame.legal);
      error.hidden = true;
      // One line per event, numbered by the event's version, oldest first as in the
      // replay, the newest kept in view; an empty line (a card of the deal, told on its
      // seat's line) is not shown. A whole frame (connecting, sync: since = version)
      // carries the log so far, which replaces ours.
      const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
      if (frame.since === frame.version) log.replaceChildren();
      let number = frame.version - frame.log.length;
      for (const line of frame.log) {
        number += 1;
        if (!line) continue;
        const li = document.createElement("li");
        li.value = number;
        li.textContent = line;
        log.append(li);
      }
      log.dataset.version = String(frame.version);
      if (atEnd || frame.since === frame.version) log.scrollTop = log.scrollHeight;
      if (frame.finished) {
        end.hidden = false;
        // Not "waiting for the others", nor a game to leave: nothing is left.
        for (const gone of root.querySelectorAll(".live-moves, .live-leave")) gone.hidden = true;
      }
      root.dataset.version = String(version);
    }

    function connect() {
      socket = new WebSocket(url);
      socket.addEventListener("open", () => { retry = 500; if (status) status.textContent = words.connected || ""; });
      socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type === "state" || frame.type === "error") { clearTimeout(quiet); quiet = null; }
        if (frame.type === "state") {
          if (room) { again(); return; }
          onState(frame);
        } else if (frame.type === "room" && room) {
          again();
        } else if (frame.type === "waiting" && room) {
          if (frame.seats && root.dataset.seats && frame.seats !== root.dataset.seats) again();
        } else if (frame.type === "closed") {
          onClosed();
        } else if (frame.type === "left") {
          for (const gone of root.querySelectorAll(".live-moves, .live-leave")) gone.hidden = true;
          const note = root.querySelector(".live-left");
          if (note && note.hidden) {
            note.textContent = (words[frame.reason] || words.left) || "";
            note.hidden = false;
          }
        } else if (frame.type === "error" && error) {
          error.textContent = frame.reason;
          error.hidden = false;
        }
      });
      socket.addEventListener("close", () => {
        if (closed) return;
        if (status) status.textContent = words.reconnecting || "";
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 8000);
      });
    }
    connect();
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const root of document.querySelectorAll("[data-socket]")) {
      if (root.classList.contains("lobby")) continue;
      start(root);
    }
  });
})();
