// The table of Quarto at the web page: the person moves on the board itself (click a tinted cell, then the
// piece to give; the opening move is a piece only, the last placement a cell only), with a hint saying what
// comes next. The shared page (app.js) draws everything else; this part only reads the view the server sent
// (moves: the person's legal moves in the record's notation, piece: the piece to place) and the board's marks
// (data-legal, data-cell, data-piece). See docs/web.md, "The page and the games' parts".
(function () {
  "use strict";
  let chosen = null;        // the cell clicked, waiting for the piece to give
  let chosenAt = null;      // the version of the view it was chosen in (a new position forgets it)

  function cell(v) { return chosenAt === v.version ? chosen : null; }

  function hint(v) {
    if (!v.your_turn) return "";
    if (!v.piece) return "Choose the piece your opponent must place: click it under “Pieces left”.";
    return cell(v) ? "Now click the piece to give." : "Click a tinted cell to place " + v.piece + ", then the piece to give.";
  }

  function boardClick(target, v, table) {
    if (!v.your_turn || !table.canAct()) return;
    const square = target.closest(".cell[data-legal]");
    const piece = target.closest(".left[data-legal]");
    const moves = v.moves || [];
    if (square) {
      const name = square.dataset.cell;
      if (moves.includes(name)) return table.act(name); // the last placement: nothing left to give
      chosen = name;
      chosenAt = v.version;
      table.board.querySelectorAll(".cell.selected").forEach((c) => c.classList.remove("selected"));
      square.classList.add("selected");
      table.setHint(hint(v));
    } else if (piece) {
      const name = piece.dataset.piece;
      if (moves.includes(name)) return table.act(name); // the opening choice
      const at = cell(v);
      if (at && moves.includes(at + " " + name)) return table.act(at + " " + name);
      table.setHint("First click a cell to place " + v.piece + ".");
    }
  }

  Quaternity.registerGame("quarto", {
    boardTitle: () => "Pieces",
    reset() { chosen = null; chosenAt = null; },
    drawActions(v, table) { table.box.innerHTML = ""; },
    hint,
    boardClick,
  });
})();
