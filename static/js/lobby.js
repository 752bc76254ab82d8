/* The lobby's live lists: a websocket to /ws/lobby/ sends the lists whenever a table
 * opens, fills, starts or ends (docs/protocol.md, frame `lobby`): open tables, games
 * being played, and the signed-in person's own tables. */
(function () {
  "use strict";

  function fill(list, items, text) {
    list.innerHTML = "";
    if (!items.length) {
      if (!list.dataset.empty) return;
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

  // The new-table form offers a seat picker for each seat the player count allows: the
  // others are hidden (the server ignores them anyway).
  function seatsFollowPlayers() {
    const form = document.querySelector(".table-form");
    const players = form && form.querySelector("[name=players]");
    if (!players) return;
    const show = () => {
      const count = Number(players.value) || Infinity;  // not a number yet: all
      for (const seat of form.querySelectorAll("[name^=seat_]")) {
        const row = seat.closest("p") || seat;
        row.hidden = Number(seat.name.slice(5)) >= count;
      }
    };
    players.addEventListener("change", show);
    players.addEventListener("input", show);
    show();
  }

  document.addEventListener("DOMContentLoaded", () => {
    seatsFollowPlayers();
    const root = document.querySelector(".lobby[data-socket]");
    if (!root) return;
    const open = root.querySelector(".lobby-open");
    const running = root.querySelector(".lobby-running");
    const mine = document.querySelector(".lobby-mine");
    function connect() {
      const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.socket);
      socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type !== "lobby") return;
        fill(open, frame.open, (t) => " — " + t.free + " "
          + (t.free === 1 ? open.dataset.freeOne : open.dataset.free));
        fill(running, frame.running, (t) => " (" + running.dataset.watch + ")"
          + (t.left || []).map((name) => " · " + running.dataset.left.replace("{name}", name)).join(""));
        if (mine && frame.mine) {
          // The signed-in person's own tables; the section hides while there are none.
          mine.closest("section").hidden = !frame.mine.length;
          fill(mine, frame.mine, (t) => " (" + (t.status === "running"
            ? mine.dataset.running : mine.dataset.waiting) + ")");
        }
      });
      socket.addEventListener("close", () => setTimeout(connect, 2000));
    }
    connect();
  });
})();
