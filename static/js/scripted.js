/* Loaded without defer in the head of the replay viewer and its embed, so that it runs
 * before the page is drawn: marks the document as scripted, which shows the controls
 * only JavaScript drives (replay.css, `html:not(.js) .js-only`) from the first paint.
 * A file, not an inline script: the Content-Security-Policy allows no inline script
 * (config/csp.py). */
document.documentElement.classList.add("js");
