// The ladder's pages update without a reload: every few seconds ask /api/version for the last
// match rated, the tables in play and (an entrant's) its uploads; when one has changed since this page was made, fetch
// the page again and put its main part in place. The HTML comes from our own server, which
// escapes every text of the database; a parsed document runs no script.
"use strict";

const PERIOD = 3000;

async function refresh() {
  const body = document.body;
  try {
    const answer = await fetch("/api/version", { cache: "no-store", credentials: "same-origin" });
    if (!answer.ok) throw new Error(String(answer.status));
    const now = await answer.json();
    const uploads = now.uploads || "";
    if (busyForm()) {
      // an upload being chosen or typed stays as it is: the page is shown again after it is sent
    } else if (now.stamp !== body.dataset.stamp || now.tables !== body.dataset.tables || uploads !== (body.dataset.uploads || "")) {
      const page = await fetch(location.href, { cache: "no-store", credentials: "same-origin" });
      if (!page.ok) throw new Error(String(page.status));
      const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
      // asked again now, with no wait before the swap: the entrant may have chosen a file while
      // the page was fetched, and a swap would drop it (the page stays marked old, to be swapped
      // once the form is sent or emptied)
      const main = fresh.querySelector("main");
      if (main && !busyForm()) {
        const adopted = document.adoptNode(main);
        keepForm(adopted);
        document.querySelector("main").replaceWith(adopted);
        body.dataset.stamp = fresh.body.dataset.stamp;
        body.dataset.tables = fresh.body.dataset.tables;
        body.dataset.uploads = fresh.body.dataset.uploads || "";
      }
    }
    document.getElementById("live").textContent = `live · ${now.seq} rated`;
  } catch (error) {
    document.getElementById("live").textContent = "not updating (the server is gone?)";
  }
}

// Whether the upload form holds anything the entrant has chosen or typed, or has the focus.
function busyForm() {
  const form = document.querySelector("main form.upload");
  if (!form) return false;
  if (form.contains(document.activeElement)) return true;
  return Array.from(form.querySelectorAll("input")).some(
    (input) => (input.type === "file" ? input.files.length > 0 : input.type === "text" && input.value !== ""),
  );
}

// The upload form stays the same element across a redraw (the fresh page's copy of it is
// dropped): what is set on it between the check above and the swap, by a person or by a script
// that found the form before (a browser test's handle), is not lost with the old page.
function keepForm(fresh) {
  const live = document.querySelector("main form.upload");
  const copy = fresh.querySelector("form.upload");
  if (live && copy) copy.replaceWith(live);
}

setInterval(refresh, PERIOD);
refresh();
