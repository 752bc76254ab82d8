/* On every page of the site (templates/base.html), a file rather than inline handlers,
 * which the Content-Security-Policy refuses (config/csp.py).
 * The language switch: choosing a language posts the form at once, with the address as
 * it is shown (the form holds the path only: a query string may hold a share token,
 * which is not written into every page). Without JavaScript its button posts it. */
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", () => {
    const select = document.getElementById("language-select");
    if (!select) return;
    select.addEventListener("change", () => {
      select.form.elements.next.value = location.pathname + location.search;
      select.form.submit();
    });
  });
})();

/* A finished game whose end this reader has seen (its replay at the last step, its
 * live table when it ended) is no spoiler any more: the game lists show its winner and
 * coins to them (static/js/games.js reads the same key). The 500 latest are kept. */
window.bohnanzaWatched = function (gameId) {
  "use strict";
  if (!/^[0-9a-f-]{36}$/.test(gameId || "")) return;
  try {
    const key = "bohnanza.watched";
    const seen = JSON.parse(localStorage.getItem(key) || "[]");
    const kept = (Array.isArray(seen) ? seen : []).filter((g) => g !== gameId);
    kept.push(gameId);
    localStorage.setItem(key, JSON.stringify(kept.slice(-500)));
  } catch (error) { /* storage refused (private mode, full): the lists keep hiding */ }
};
