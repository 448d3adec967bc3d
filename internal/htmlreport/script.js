// Conveniences only; the page reads the same without them.
(function () {
  // Open the collapsed sections that hold the target of a link.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  // The contents start collapsed, so that on a phone the verdict and the
  // first section are on the first screen; wider screens have room to
  // show them.
  var toc = document.getElementById("contents");
  if (toc && window.matchMedia && window.matchMedia("(min-width: 700px)").matches) toc.open = true;
  var tools = document.querySelector(".toc-tools");
  if (!tools) return;
  tools.hidden = false;
  tools.addEventListener("click", function (e) {
    var v = e.target.getAttribute("data-expand");
    if (v === null) return;
    document.querySelectorAll("details.section").forEach(function (d) {
      d.open = v === "1" || d.classList.contains("depth-0");
    });
  });
})();
