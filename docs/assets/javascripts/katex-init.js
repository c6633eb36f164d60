// Typeset the math of every page with the site's own KaTeX (docs/assets/katex; no CDN).
// Markdown pages: pymdownx.arithmatex (generic mode) wraps math in .arithmatex as \(..\) / \[..\].
// The notebook page (mkdocs-jupyter): markdown cells and LaTeX outputs keep $..$ / $$..$$.
document$.subscribe(function () {
  var options = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
      { left: "$", right: "$", display: false }
    ],
    throwOnError: false,
    errorColor: "#cc0000"
  };
  document.querySelectorAll(".arithmatex, .jupyter-wrapper .jp-RenderedMarkdown, " +
                            ".jupyter-wrapper .jp-RenderedLatex").forEach(function (el) {
    renderMathInElement(el, options);
  });
});
