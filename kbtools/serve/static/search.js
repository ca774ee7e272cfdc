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
  var sizes = !(window.CSS && CSS.supports && CSS.supports("field-sizing", "content"));
  function grow() {
    if (sizes) {
      box.style.height = "auto";
      box.style.height = box.scrollHeight + 2 + "px";
    }
  }
  // Back or forward to a page kept whole (the back/forward cache): its fields are as they
  // were left, a next question perhaps typed over the one this page answers. They go back to
  // what the page answers (the form's `autocomplete="off"` does it for a page loaded again).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      box.form.reset();
      grow();
    }
  });
  box.addEventListener("input", grow);
  grow();
})();
