// The search page's question box (a textarea: a pasted log keeps its lines). Without this
// script the box and its button work as any form; with it, Enter searches and Shift+Enter
// starts a new line, and the box grows with its text where CSS `field-sizing` is unknown.
// Loaded from this server (the pages' CSP allows no inline script and nothing elsewhere).
(function () {
  "use strict";
  var box = document.getElementById("kb-q");
  if (!box || !box.form) {
    return;
  }
  box.addEventListener("keydown", function (event) {
    // an input method confirming its text (Chinese pinyin) ends with Enter too: not a search
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) {
      return;
    }
    event.preventDefault();
    if (box.form.requestSubmit) {
      box.form.requestSubmit();
    } else {
      box.form.submit();
    }
  });
  if (window.CSS && CSS.supports && CSS.supports("field-sizing", "content")) {
    return;
  }
  function grow() {
    box.style.height = "auto";
    box.style.height = box.scrollHeight + 2 + "px";
  }
  box.addEventListener("input", grow);
  grow();
})();
