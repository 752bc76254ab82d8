/* The lobby's live lists: a websocket to /ws/lobby/ sends both lists whenever a table
 * opens, fills, starts or ends (docs/protocol.md, frame `lobby`). */
(function () {
  "use strict";

  function fill(list, items, text) {
    list.innerHTML = "";
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "rt-none";
      li.textContent = list.dataset.empty;
      list.appendChild(li);
      return;
    }
    for (const t of items) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "/play/tables/" + t.id + "/";
      a.textContent = t.preset + " · " + t.players;
      li.appendChild(a);
      li.appendChild(document.createTextNode(text(t)));
      list.appendChild(li);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const root = document.querySelector(".lobby[data-socket]");
    if (!root) return;
    const open = root.querySelector(".lobby-open");
    const running = root.querySelector(".lobby-running");
    function connect() {
      const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.socket);
      socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type !== "lobby") return;
        fill(open, frame.open, (t) => " — " + t.free + " " + open.dataset.free);
        fill(running, frame.running, (t) => " (" + running.dataset.watch + ")"
          + (t.left || []).map((name) => " · " + running.dataset.left.replace("{name}", name)).join(""));
      });
      socket.addEventListener("close", () => setTimeout(connect, 2000));
    }
    connect();
  });
})();
