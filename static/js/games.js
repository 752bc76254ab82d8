/* The game lists without spoilers (templates/replays/game_list.html): a list that hides
 * results (the default) still shows them for the games this reader has watched to the
 * end in the viewer (static/js/replay.js keeps their ids in localStorage) or played in
 * (the server marks those rows data-seen). */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", () => {
    let seen = [];
    try {
      seen = JSON.parse(localStorage.getItem("bohnanza.watched") || "[]");
    } catch (error) { return; }
    const watched = new Set(Array.isArray(seen) ? seen : []);
    for (const row of document.querySelectorAll(".hide-results tr[data-game-id]")) {
      if (watched.has(row.dataset.gameId)) row.dataset.seen = "1";
    }
  });
})();
