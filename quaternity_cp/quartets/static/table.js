// The table of quartets at the web page (every Quaternity preset and classic Quartets): the choices under the
// table (answer yes or no, the player and card to ask for, declarations), the hint, and the clicks on the grid
// (a question, or why a card is where the grid says, or why a set was claimed). The shared page (app.js)
// draws everything else; this part only reads the view the server sent (answers, declarations, pending,
// classic) and the grid's marks (data-action, data-card, data-seat, data-state), and sends moves back
// through table.act. See docs/web.md, "The page and the games' parts".
(function () {
  "use strict";
  let askSeat = null; // the player the person is about to ask

  // every question open to the person, by the seat asked (from the grid's legal squares)
  function questionsBySeat(table) {
    const bySeat = new Map();
    table.board.querySelectorAll("[data-legal][data-action][data-card][data-seat]").forEach((e) => {
      const seat = parseInt(e.dataset.seat, 10);
      if (!bySeat.has(seat)) bySeat.set(seat, []);
      // a cell the picture shows impossible: what the person knows says the answer will be no
      bySeat.get(seat).push({ card: e.dataset.card, action: e.dataset.action, refused: e.dataset.state === "impossible" });
    });
    return bySeat;
  }

  function actButton(table, label, action, cls) {
    const b = table.node("button", "act " + (cls || ""), label);
    b.type = "button";
    b.dataset.action = action;
    b.addEventListener("click", () => table.act(action));
    return b;
  }

  function drawActions(v, table) {
    const box = table.box;
    box.innerHTML = "";
    const answers = table.node("div", "answers");
    answers.id = "answers";
    const ask = table.node("div", "ask");
    ask.id = "ask";
    const decl = table.node("div", "declarations");
    decl.id = "declarations";
    box.appendChild(answers);
    box.appendChild(ask);
    box.appendChild(decl);
    const asked = v.pending ? (String(v.pending).match(/:([^:?]+)\?$/) || [])[1] : null;
    (v.answers || []).forEach((a) => {
      const yes = a.answer === "yes";
      const label = yes ? (asked ? "Yes, I have " + asked : "Yes") : (asked ? "No, I don't have " + asked : "No");
      const b = actButton(table, label, a.text, yes ? "yes" : "no");
      b.dataset.answer = a.answer;
      answers.appendChild(b);
    });
    (v.declarations || []).forEach((d) => {
      decl.appendChild(actButton(table, d.label || "Declare set " + d.set, d.text, "declare"));
    });
    drawAsk(v, table);
  }

  function drawAsk(v, table) {
    const box = document.getElementById("ask");
    if (!box) return;
    box.innerHTML = "";
    if (!v.your_turn || (v.answers && v.answers.length)) return;
    const bySeat = questionsBySeat(table);
    if (!bySeat.size) return;
    const me = table.seat();
    const seats = v.table;
    const order = seats.map((t) => t.seat).filter((s) => bySeat.has(s))
      .sort((a, b) => ((a - me + seats.length) % seats.length) - ((b - me + seats.length) % seats.length));
    const open = (seat) => bySeat.get(seat).some((q) => !q.refused); // some answer may be yes
    if (!order.includes(askSeat)) askSeat = order.find(open) ?? order[0];
    const word = table.seatWord();
    const head = table.node("div", "ask-head");
    head.appendChild(table.node("span", "", "Ask"));
    const who = table.node("div", "ask-seats");
    who.setAttribute("role", "group");
    who.setAttribute("aria-label", "the player to ask");
    order.forEach((seat) => {
      const t = seats.find((x) => x.seat === seat);
      const b = table.node("button", "seat-pick", t ? table.shortName(t.name) : word + " " + seat);
      b.type = "button";
      b.dataset.seat = String(seat);
      b.setAttribute("aria-pressed", String(seat === askSeat));
      if (!open(seat)) {
        b.classList.add("known-no");
        b.title = "every card you may ask " + table.shortName(t ? t.name : word + " " + seat) + " for is known not to be there";
      }
      b.addEventListener("click", () => { askSeat = seat; drawAsk(table.view(), table); table.sync(); });
      who.appendChild(b);
    });
    head.appendChild(who);
    head.appendChild(table.node("span", "", "for"));
    box.appendChild(head);
    const cards = table.node("div", "ask-cards");
    const target = seats.find((x) => x.seat === askSeat);
    const whom = target ? table.shortName(target.name) : word + " " + askSeat;
    // the questions known to be refused (that seat cannot hold the card) come last, marked "no"
    const listed = bySeat.get(askSeat).filter((q) => !q.refused).concat(bySeat.get(askSeat).filter((q) => q.refused));
    listed.forEach((q) => {
      const c = table.card(q.card, "ask-card");
      const button = table.node("button", "card-button" + (q.refused ? " known-no" : ""));
      button.type = "button";
      button.dataset.action = q.action;
      button.dataset.card = q.card;
      button.dataset.seat = String(askSeat);
      if (q.refused) {
        button.dataset.refused = "1";
        button.title = whom + " cannot hold " + q.card + ": the answer will be no";
        c.appendChild(table.node("span", "card-no", "no"));
      }
      button.setAttribute("aria-label", "Ask " + (target ? target.name : "seat " + askSeat) + " for " + q.card
        + (q.refused ? " (known: the answer will be no)" : ""));
      button.appendChild(c);
      button.addEventListener("click", () => table.act(q.action));
      cards.appendChild(button);
    });
    box.appendChild(cards);
    document.querySelectorAll(".plate").forEach((p) => {
      p.classList.toggle("askable", bySeat.has(parseInt(p.dataset.seat, 10)));
      p.classList.toggle("asked", parseInt(p.dataset.seat, 10) === askSeat);
    });
  }

  function hint(v, table) {
    if (!v.your_turn) return "";
    if (v.answers && v.answers.length) return "";
    if (questionsBySeat(table).size) return "Choose a player and the card to ask for (or click a tinted square in the grid).";
    return "";
  }

  // a click on the grid: a question (a tinted square), else why a card is where the grid says, or why a set was claimed
  function boardClick(target, v, table) {
    const legal = target.closest("[data-legal][data-action]");
    if (legal && v.your_turn) return table.act(legal.dataset.action);
    const forced = target.closest("[data-state=forced]");
    const label = target.closest(".card-label");
    const claimed = target.closest(".claimed");
    if (forced) table.explain("card=" + encodeURIComponent(forced.dataset.card) + "&seat=" + forced.dataset.seat);
    else if (label) table.explain("card=" + encodeURIComponent(label.closest("[data-card]").dataset.card));
    else if (claimed) table.explain("set=" + encodeURIComponent(claimed.dataset.set));
  }

  // a click on another player's place at the table: ask that player
  function seatClick(seat, v, table) {
    if (questionsBySeat(table).has(seat)) { askSeat = seat; drawAsk(v, table); }
  }

  Quaternity.registerGame("quartets", {
    boardTitle: (v) => (v.classic ? "What you know" : "What everyone knows"),
    clickable: ".card-label, .claimed, [data-state=forced]",
    whyHint: "Click a card's name in the grid (or a green square) to see why it is where the grid says; "
      + "click a claimed set to see why it was claimed.",
    reset() { askSeat = null; },
    drawActions,
    hint,
    boardClick,
    seatClick,
  });
})();
