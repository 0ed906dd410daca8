package io.blockscope.cli;

import java.util.List;

/**
 * What an interactive {@code blockscope top} shows and how its keys change it: the mode
 * (namespaces, tables, regions), the namespace or table drilled into, the filter, the sort column
 * and the selected row. Pure state: {@link Top} feeds it keys and draws {@link #screen}.
 */
final class TopSession {
  /** Key codes beside characters: the arrow keys, as {@link Terminal} decodes them. */
  static final int UP = -1;

  static final int DOWN = -2;
  static final int ENTER = '\n';
  static final int ESCAPE = 27;
  static final int BACKSPACE = 127;

  static final String KEYS =
      "keys: n t r w namespaces/tables/regions/users  < > sort  / filter  = clear  up/down select"
          + "  enter drill down  u up  h help  q quit";

  static final String HELP =
      """
      blockscope top: keys

        n, t, r, w   show namespaces, tables, regions or users (who read)
        <, >         sort by the column left or right of the current one
        /            filter: type text, Enter keeps it (rows whose name contains it, any case),
                     Escape drops what was typed
        =            clear the filter and leave the namespace or table drilled into
        up, down     select a row (also k, j)
        enter, i     drill down: a namespace's tables, a table's regions
        u            back up: from a table's regions to its namespace's tables, then to
                     the namespaces
        h, ?         this help; any key returns
        q            quit
      """;

  private TopView.Scope scope;
  private TopView.Figure sort;
  private int selected;
  private StringBuilder typing;
  private boolean help;
  private String message;

  TopSession(TopView.Mode mode, String filter, TopView.Figure sort) {
    this.scope = new TopView.Scope(mode, null, filter);
    this.sort = sort;
  }

  TopView.Scope scope() {
    return scope;
  }

  TopView.Figure sort() {
    return sort;
  }

  int selected() {
    return selected;
  }

  /**
   * Applies one key to the state, with {@code view} the view on screen (null before the first);
   * false for the key that quits.
   */
  boolean key(int k, TopView view) {
    message = null;
    if (typing != null) {
      typed(k);
      return true;
    }
    if (help) {
      help = false;
      return true;
    }
    switch (k) {
      case 'q', 'Q' -> {
        return false;
      }
      case 'h', '?' -> help = true;
      case 'n' -> mode(TopView.Mode.NAMESPACE, null);
      case 't' -> mode(TopView.Mode.TABLE, null);
      case 'r' -> mode(TopView.Mode.REGION, null);
      case 'w' -> mode(TopView.Mode.USER, null);
      case '<', ',' -> sort = step(-1);
      case '>', '.' -> sort = step(1);
      case '/' -> typing = new StringBuilder();
      case '=' -> {
        scope = new TopView.Scope(scope.mode(), null, null);
        selected = 0;
      }
      case UP, 'k' -> selected = Math.max(0, selected - 1);
      case DOWN, 'j' -> selected = Math.min(selected + 1, Math.max(0, rows(view) - 1));
      case ENTER, 'i' -> drill(view);
      case 'u', BACKSPACE -> up();
      default -> message = "no key '" + printable(k) + "': h for help";
    }
    return true;
  }

  private static String printable(int k) {
    return k >= 32 && k < 127 ? String.valueOf((char) k) : "#" + k;
  }

  private int rows(TopView view) {
    return view == null ? 0 : view.shown(scope, sort).size();
  }

  private void typed(int k) {
    if (k == ENTER) {
      String f = typing.toString().strip();
      scope = new TopView.Scope(scope.mode(), scope.within(), f.isEmpty() ? null : f);
      typing = null;
      selected = 0;
    } else if (k == ESCAPE) {
      typing = null;
    } else if (k == BACKSPACE || k == 8) {
      if (typing.length() > 0) {
        typing.setLength(typing.length() - 1);
      }
    } else if (k >= 32 && k < 127) {
      typing.append((char) k);
    }
  }

  private TopView.Figure step(int by) {
    TopView.Figure[] all = TopView.Figure.values();
    return all[(sort.ordinal() + by + all.length) % all.length];
  }

  private void mode(TopView.Mode m, String within) {
    scope = new TopView.Scope(m, within, null);
    selected = 0;
  }

  private void drill(TopView view) {
    List<TopView.Row> rows = view == null ? List.of() : view.shown(scope, sort);
    if (rows.isEmpty()) {
      message = "no row to drill into";
      return;
    }
    TopView.Row r = rows.get(Math.min(selected, rows.size() - 1));
    switch (scope.mode()) {
      case NAMESPACE -> mode(TopView.Mode.TABLE, r.table());
      case TABLE -> mode(TopView.Mode.REGION, r.table());
      case REGION -> message = "a region is the finest level; u goes back up";
      case USER -> message = "a user's reads are summed over every table; t shows the tables";
    }
  }

  private void up() {
    switch (scope.mode()) {
      case REGION ->
          mode(
              TopView.Mode.TABLE,
              scope.within() == null ? null : TopView.namespace(scope.within()));
      case TABLE -> mode(TopView.Mode.NAMESPACE, null);
      case NAMESPACE -> message = "namespaces are the top level";
      case USER -> message = "users are one level; t shows the tables";
    }
  }

  /** The whole screen: the view (or a wait line before the first), then a status line. */
  String screen(TopView view, int limit, String when, int seconds) {
    if (help) {
      return HELP + "\n(any key returns)\n";
    }
    StringBuilder b = new StringBuilder();
    if (view == null) {
      b.append("blockscope top: first view in ")
          .append(seconds)
          .append(" s (two readings, --interval apart)\n");
    } else {
      int n = rows(view);
      selected = Math.min(selected, Math.max(0, n - 1));
      b.append(view.text(sort, limit, when, scope, n == 0 ? -1 : selected));
    }
    b.append('\n');
    if (typing != null) {
      b.append("filter: ").append(typing).append('_');
    } else if (message != null) {
      b.append(message);
    } else {
      b.append(KEYS);
    }
    return b.append('\n').toString();
  }
}
