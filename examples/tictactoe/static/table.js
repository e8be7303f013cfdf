// The table of tic-tac-toe at the web page: the person clicks a tinted cell. The shared page draws the rest.
(function () {
  "use strict";
  Quaternity.registerGame("tictactoe", {
    boardTitle: () => "Grid",
    drawActions(v, table) { table.box.innerHTML = ""; },
    hint: (v) => (v.your_turn ? "Click a tinted cell to mark it." : ""),
    boardClick(target, v, table) {
      const cell = target.closest(".cell[data-legal]");
      if (cell && v.your_turn && table.canAct()) table.act(cell.dataset.cell);
    },
  });
})();
