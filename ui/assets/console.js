// Progressive enhancement only: every page works without this script.
// Admin action forms carry data-confirm="question"; ask before sending them.
document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
