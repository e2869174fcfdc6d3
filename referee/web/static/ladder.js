// The ladder's pages update without a reload: every few seconds ask /api/version for the last
// match rated and the tables in play; when either has changed since this page was made, fetch
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
    if (now.stamp !== body.dataset.stamp || now.tables !== body.dataset.tables) {
      const page = await fetch(location.href, { cache: "no-store", credentials: "same-origin" });
      if (!page.ok) throw new Error(String(page.status));
      const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
      const main = fresh.querySelector("main");
      if (main) document.querySelector("main").replaceWith(document.adoptNode(main));
      body.dataset.stamp = fresh.body.dataset.stamp;
      body.dataset.tables = fresh.body.dataset.tables;
    }
    document.getElementById("live").textContent = `live · ${now.seq} rated`;
  } catch (error) {
    document.getElementById("live").textContent = "not updating (the server is gone?)";
  }
}

setInterval(refresh, PERIOD);
refresh();
