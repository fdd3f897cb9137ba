// A box that scrolls sideways (a wide table, output or equation; see tabular-trees.css) must be reachable with the
// keyboard, so that its hidden part can be scrolled into view without a mouse (WCAG 2.1.1; axe:
// scrollable-region-focusable). Give each such box a tab stop and a name.
(function () {
  const selector = ".cell_output, .output, div.math, pre, table, .pst-scrollable-table-container, .highlight";
  function mark() {
    for (const el of document.querySelectorAll(selector)) {
      if (el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        if (!el.hasAttribute("aria-label") && !el.hasAttribute("role")) {
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", "scrollable content");
        }
      }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
})();
