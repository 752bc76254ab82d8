/* A league's "Your fixtures", live: the lobby's socket (/ws/lobby/) speaks whenever a
 * table opens, starts or ends, a new season's tables included (a web process finds
 * those within seconds, play/driver.py's sweep); each time, the fragment is fetched
 * again from the league (its view also moves the league on, as a page view does) and
 * put in place if it changed. */
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", () => {
    const box = document.querySelector(".my-fixtures-live[data-url][data-socket]");
    if (!box) return;
    let fetching = false;
    let again = false;
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
    function connect() {
      const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + box.dataset.socket);
      socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type === "lobby") refresh();
      });
      socket.addEventListener("close", () => setTimeout(connect, 2000));
    }
    connect();
  });
})();
