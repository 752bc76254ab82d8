/* A competition's page, live: the part that changes as games are played ("Your games",
 * then its standings, ranking or seasons, and its games) is fetched again from the
 * competition (<id>/live/, whose view also moves the competition on, as a page view
 * does) and put in place if it changed:
 * - whenever the lobby's socket (/ws/lobby/) speaks, for a competition with live
 *   tables: a table opened, started or ended, a new round's tables included (a web
 *   process finds those within seconds, play/driver.py's sweep);
 * - every POLL_MS while the page is shown, since bots' games are played by the
 *   workers, which tell no socket.
 * It stops once the fragment says the competition has ended. */
(function () {
  "use strict";

  const POLL_MS = 10000;

  document.addEventListener("DOMContentLoaded", () => {
    const box = document.querySelector(".competition-live[data-url]");
    if (!box) return;
    let fetching = false;
    let again = false;
    let timer = null;
    function refresh() {
      if (fetching) { again = true; return; }
      fetching = true;
      fetch(box.dataset.url, {headers: {"Accept": "text/html"}, credentials: "same-origin"})
        .then((answer) => answer.ok ? answer.text() : null)
        .then((html) => {
          if (html !== null && html.trim() !== box.innerHTML.trim()) box.innerHTML = html;
        })
        .catch(() => {})
        .finally(() => {
          fetching = false;
          if (again) { again = false; refresh(); }
        });
    }
    function poll() {
      timer = null;
      if (box.querySelector("[data-competition-finished]")) return;
      if (!document.hidden) refresh();
      timer = setTimeout(poll, POLL_MS);
    }
    timer = setTimeout(poll, POLL_MS);
    if (box.dataset.socket) {
      const connect = () => {
        const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + box.dataset.socket);
        socket.addEventListener("message", (message) => {
          const frame = JSON.parse(message.data);
          if (frame.type === "lobby") refresh();
        });
        socket.addEventListener("close", () => setTimeout(connect, 2000));
      };
      connect();
    }
  });
})();
