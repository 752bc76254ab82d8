/* The lobby's live lists: a websocket to /ws/lobby/ sends the lists whenever a table
 * opens, fills, starts or ends (docs/protocol.md, frame `lobby`): open tables, games
 * being played, and the signed-in person's own tables. */
(function () {
  "use strict";

  const wordsNode = document.getElementById("lobby-words");
  const words = wordsNode ? JSON.parse(wordsNode.textContent) : null;

  function fillIn(template, values) {
    return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
  }

  // An entry in words, as play/lobby.py's entry_words writes it for the page.
  function entry(li, t) {
    const a = document.createElement("a");
    a.href = "/play/tables/" + t.id + "/";
    a.className = "lobby-entry-title";
    if (!words) {
      a.textContent = t.preset + " · " + t.players;
      li.appendChild(a);
      return;
    }
    a.title = words.explained[t.preset] || "";
    const preset = document.createElement("span");
    preset.setAttribute("translate", "no");
    preset.textContent = t.preset;
    a.append(preset, " · " + fillIn(words.players, { n: t.players }));
    // A seat a bot account plays (the entry's bot_accounts) is marked as a bot's.
    const marked = t.bot_accounts || [];
    const name = (p, n) => {
      if (p === null) return words.open;
      const at = p.indexOf(":");
      const kind = p.slice(0, at), rest = p.slice(at + 1);
      if (kind === "bot") return words.bots[rest] || rest;
      return marked.includes(n) && words.bot_account ? fillIn(words.bot_account, { name: rest }) : rest;
    };
    const [move, game] = t.clock;
    const clock = !move ? words.clock_none : !game ? fillIn(words.clock_move, { n: move })
      : fillIn(words.clock_game, { move: fillIn(words.clock_move, { n: move }), n: game });
    const parts = [fillIn(words.host, { host: t.host }), t.seats.map(name).join(", "), clock];
    const rules = t.house_rules.map((r) => words.rules[r] || r).join(", ");
    if (rules) parts.push(fillIn(words.house_rules, { rules }));
    const meta = document.createElement("span");
    meta.className = "lobby-entry-meta";
    meta.textContent = parts.join(" · ");
    li.append(a, " ", meta);
  }

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
      entry(li, t);
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
          + (t.left || []).map((name) => " · " + running.dataset.left.replace("{name}", name)).join("")
          + (t.away || []).map((name) => " · " + running.dataset.away.replace("{name}", name)).join(""));
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
