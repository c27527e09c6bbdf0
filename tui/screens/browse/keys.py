"""The browse screen's key bindings, each with the id a user remaps it by (`[keys]` in the config file).

`BrowseScreen.BINDINGS` is this list, so the keymap, the footer and the help screen (the app's
`binding_entries`) see the same keys as ever. Each action is defined on the screen or one of its mixins.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

BINDINGS: list[BindingType] = [
    Binding("slash", "search", "Search", id="browse.search"),
    Binding("f", "focus_facets", "Facets", id="browse.facets"),
    Binding("l", "focus_table", "Table", id="browse.table"),
    Binding("t", "tag", "Tag", id="browse.tag"),
    Binding("T", "tag_all", "Tag all filtered", id="browse.tag_all"),
    Binding("a", "accept_suggestion", "Accept suggestion", id="browse.accept"),
    Binding("A", "accept_as_gold", "Accept as alternative gold", id="browse.accept_gold"),
    Binding(
        "W",
        "withdraw_gold",
        "Withdraw an accepted alternative gold",
        show=False,
        id="browse.withdraw_gold",
    ),
    Binding("d", "untag", "Remove tag", id="browse.untag"),
    Binding("D", "untag_all", "Remove tag from all filtered", show=False, id="browse.untag_all"),
    Binding("u", "undo", "Undo", id="browse.undo"),
    Binding(
        "U", "undo_anyone", "Undo the newest change, whoever made it", show=False, id="browse.undo_anyone"
    ),
    Binding("J", "toggle_adjudicate", "Adjudicate on/off", show=False, id="browse.adjudicate"),
    Binding("n", "note", "Note", id="browse.note"),
    Binding("e", "export", "Export", id="browse.export"),
    Binding("m", "summary", "Summary", id="browse.summary"),
    Binding("r", "toggle_resolve", "Aliases as written/resolved", show=False, id="browse.resolve"),
    Binding("enter", "open_detail", "Detail", id="browse.detail"),
    Binding("left_square_bracket", "prev_model", "Prev model", id="browse.prev_model", key_display="["),
    Binding("right_square_bracket", "next_model", "Next model", id="browse.next_model", key_display="]"),
    Binding("s", "sort", "Sort", id="browse.sort"),
    Binding("S", "reverse_sort", "Reverse sort", show=False, id="browse.reverse_sort"),
    Binding("c", "clear_filters", "Clear filters", id="browse.clear"),
    Binding("z", "toggle_maximize", "Maximise/restore detail", id="browse.maximize"),
    Binding("plus,equals_sign", "grow_detail", "Detail taller", show=False, id="browse.grow_detail"),
    Binding("minus", "shrink_detail", "Detail shorter", show=False, id="browse.shrink_detail"),
    Binding("1", "show_tab('sql')", "SQL tab", show=False, id="browse.tab_sql"),
    Binding("2", "show_tab('breakdown')", "Breakdown tab", show=False, id="browse.tab_breakdown"),
    Binding("3", "show_tab('results')", "Results tab", show=False, id="browse.tab_results"),
    Binding("4", "show_tab('question')", "Question tab", show=False, id="browse.tab_question"),
    Binding("5", "show_tab('triage')", "Triage tab", show=False, id="browse.tab_triage"),
    Binding("escape", "back", "Back", show=False, id="browse.back"),
    Binding("down", "leave_box", "From a text box to its list", show=False, id="browse.leave_box"),
]
