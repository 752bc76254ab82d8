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
