// The table of Quantum Go Fish at the web page: the person asks by choosing a player and then a suit (or by
// clicking that player's cell of the table of what is known), and answers a question with Yes or No (the
// answer the rules do not allow is shown but disabled). A click on a cell that is no question of the
// person's asks why the cell has its range. The shared page (app.js) draws everything else (the picture,
// the hand sizes at the seats, the narration, the end panel, the verdict); this part only reads the view
// the server sent (moves: the person's legal moves in the record's notation, pending, suits, table) and the
// picture's cells (data-player, data-suit, data-low, data-high), and sends moves back through table.act.
// At a table whose suits are named in play (the view's naming: the fresh suits, nobody's named or asked
// about, and the letter a question for a new suit stands for), the suits offered are the others plus a
// "new suit" field: its question is the legal one for that letter with the name the person typed instead.
// See docs/web.md, "The page and the games' parts".
(function () {
  "use strict";
  let askSeat = null; // the player the person is about to ask
  // a colour per suit, for the edge of its button (the suits' order)
  const PALETTE = ["#b3261e", "#1f5fae", "#2e7d32", "#8e44ad", "#c25e00", "#00838f", "#ad1457", "#5d6d1e"];

  // a move in the record's notation: ASKER>ASKED:SUIT and ? (asked), + (yes) or - (no)
  function parse(text, v) {
    const m = /^(.+)>(.+):(.+)([?+-])$/.exec(String(text));
    if (!m) return null;
    const seatOf = (token) => (/^\d+$/.test(token) ? parseInt(token, 10) : (v.players || []).indexOf(token));
    return { asker: seatOf(m[1]), asked: seatOf(m[2]), suit: (v.suits || []).indexOf(m[3]), mark: m[4], text };
  }

  // the person's legal moves: questions by the seat asked (suit index -> move), answers by mark (+ / -)
  function legal(v) {
    const questions = new Map();
    const answers = {};
    if (!v.your_turn || v.over) return { questions, answers };
    (v.moves || []).forEach((text) => {
      const m = parse(text, v);
      if (!m) return;
      if (m.mark === "?") {
        if (!questions.has(m.asked)) questions.set(m.asked, new Map());
        questions.get(m.asked).set(m.suit, text);
      } else {
        answers[m.mark] = text;
      }
    });
    return { questions, answers };
  }

  const nameOf = (v, seat, table) => {
    const t = (v.table || []).find((x) => x.seat === seat);
    return t ? table.shortName(t.name) : table.seatWord() + " " + seat;
  };

  function button(table, label, cls, action) {
    const b = table.node("button", "act " + (cls || ""), label);
    b.type = "button";
    if (action) {
      b.dataset.action = action;
      b.addEventListener("click", () => table.act(action));
    } else {
      // not a legal move: shown, but it does nothing (the page's sync() enables every button of the choices
      // when the person may act, so it is marked aria-disabled rather than disabled)
      b.setAttribute("aria-disabled", "true");
      b.classList.add("illegal");
    }
    return b;
  }

  function drawActions(v, table) {
    const box = table.box;
    box.innerHTML = "";
    const { questions, answers } = legal(v);
    markCells(v, table, questions);
    const pending = v.pending ? parse(v.pending, v) : null;
    if (pending && pending.asked === table.seat() && v.your_turn && !v.over) {
      const suit = v.suits[pending.suit];
      const row = table.node("div", "gofish-answers");
      row.id = "answers";
      const yes = button(table, "Yes, I have " + suit, "yes", answers["+"]);
      const no = button(table, "No, I have no " + suit, "no", answers["-"]);
      yes.dataset.answer = "+";
      no.dataset.answer = "-";
      if (!answers["+"]) yes.title = "you hold none of " + suit + " in every table consistent with the game: only no";
      if (!answers["-"]) no.title = "you hold some " + suit + " in every table consistent with the game: only yes";
      row.appendChild(yes);
      row.appendChild(no);
      box.appendChild(row);
      return;
    }
    const ask = table.node("div", "gofish-ask");
    ask.id = "ask";
    box.appendChild(ask);
    drawAsk(v, table, questions);
  }

  function drawAsk(v, table, questions) {
    const box = document.getElementById("ask");
    if (!box) return;
    box.innerHTML = "";
    if (!questions.size) return;
    const me = table.seat();
    const n = (v.table || []).length || 1;
    const order = Array.from(questions.keys()).sort((a, b) => ((a - me + n) % n) - ((b - me + n) % n));
    if (!order.includes(askSeat)) askSeat = order[0];
    const head = table.node("div", "ask-head");
    head.appendChild(table.node("span", "", "Ask"));
    const who = table.node("div", "ask-seats");
    who.setAttribute("role", "group");
    who.setAttribute("aria-label", "the player to ask");
    order.forEach((seat) => {
      const b = table.node("button", "seat-pick", nameOf(v, seat, table));
      b.type = "button";
      b.dataset.seat = String(seat);
      b.setAttribute("aria-pressed", String(seat === askSeat));
      b.addEventListener("click", () => { askSeat = seat; drawAsk(table.view(), table, legal(table.view()).questions); table.sync(); });
      who.appendChild(b);
    });
    head.appendChild(who);
    head.appendChild(table.node("span", "", "for"));
    box.appendChild(head);
    const suits = table.node("div", "ask-suits");
    suits.setAttribute("role", "group");
    suits.setAttribute("aria-label", "the suit to ask for");
    const mine = questions.get(askSeat);
    const fresh = v.naming ? v.naming.fresh || [] : [];
    (v.suits || []).forEach((suit, s) => {
      if (fresh.includes(s)) return; // a fresh suit is asked for by naming it (below)
      const action = mine.get(s);
      const b = button(table, suit, "suit-pick", action);
      b.dataset.suit = suit;
      b.dataset.seat = String(askSeat);
      b.style.setProperty("--suit", PALETTE[s % PALETTE.length]);
      if (!action) b.title = "not a legal question (you must be able to hold a " + suit + ")";
      b.setAttribute("aria-label", "Ask " + nameOf(v, askSeat, table) + " for " + suit + (action ? "" : " (not allowed)"));
      suits.appendChild(b);
    });
    if (fresh.length && mine.get(fresh[0])) suits.appendChild(newSuit(v, table, mine.get(fresh[0])));
    box.appendChild(suits);
    document.querySelectorAll(".plate").forEach((p) => {
      const seat = parseInt(p.dataset.seat, 10);
      p.classList.toggle("askable", questions.has(seat));
      p.classList.toggle("asked", seat === askSeat);
    });
    table.board.querySelectorAll("[data-player][data-suit]").forEach((c) => {
      c.classList.toggle("chosen-row", parseInt(c.dataset.player, 10) === askSeat);
    });
  }

  // "new suit…": a name and a button; the question for the first fresh suit (``plain``, lettered) with the name
  function newSuit(v, table, plain) {
    const form = table.node("form", "new-suit");
    const input = document.createElement("input");
    input.type = "text";
    input.id = "new-suit-name";
    input.maxLength = 40;
    input.placeholder = "new suit…";
    input.setAttribute("aria-label", "the name of a new suit to ask " + nameOf(v, askSeat, table) + " for");
    const go = table.node("button", "act suit-pick new-suit-ask", "Ask");
    go.type = "submit";
    form.appendChild(input);
    form.appendChild(go);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) { input.focus(); return; }
      table.act(plain.replace(/:[^:]*\?$/, ":" + name + "?"));
    });
    return form;
  }

  // the picture's cells that are a question of the person's: tinted, with the question as their action
  function markCells(v, table, questions) {
    table.board.querySelectorAll("[data-player][data-suit]").forEach((c) => {
      const p = parseInt(c.dataset.player, 10);
      const s = parseInt(c.dataset.suit, 10);
      const action = questions.has(p) ? questions.get(p).get(s) : undefined;
      if (action) {
        c.dataset.action = action;
        c.setAttribute("aria-label", "Ask " + nameOf(v, p, table) + " for " + v.suits[s]);
        c.classList.add("askable");
      } else {
        delete c.dataset.action;
        c.classList.remove("askable");
        const lo = c.dataset.low, hi = c.dataset.high;
        c.setAttribute("aria-label", nameOf(v, p, table) + ", " + v.suits[s] + ": " + (lo === hi ? lo : lo + " to " + hi)
          + " (why?)");
      }
    });
  }

  function hint(v, table) {
    if (!v.your_turn || v.over) return "";
    if (v.pending) return "";
    if (legal(v).questions.size && v.naming) return "Choose a player, then the suit to ask for or a new suit to name (or click a tinted cell of the table).";
    if (legal(v).questions.size) return "Choose a player, then the suit to ask for (or click a tinted cell of the table).";
    return "";
  }

  // a click on the table: a question (a tinted cell, when the person may ask it), else why the cell has its range
  function boardClick(target, v, table) {
    const cell = target.closest("[data-player][data-suit]");
    if (!cell) return;
    if (cell.dataset.action && v.your_turn && table.canAct()) return table.act(cell.dataset.action);
    const suit = v.suits[parseInt(cell.dataset.suit, 10)];
    table.explain("set=" + encodeURIComponent(suit) + "&seat=" + cell.dataset.player);
  }

  // a click on another player's place at the table: ask that player
  function seatClick(seat, v, table) {
    const { questions } = legal(v);
    if (questions.has(seat)) { askSeat = seat; drawAsk(v, table, questions); }
  }

  Quaternity.registerGame("gofish", {
    boardTitle: () => "What everyone knows",
    clickable: "[data-player][data-suit]",
    whyHint: "Click a cell of the table (a player's count of a suit) to see why it has its range: what was asked "
      + "and answered, or a counting argument over every hand and suit.",
    reset() { askSeat = null; },
    drawActions,
    hint,
    boardClick,
    seatClick,
  });
})();
