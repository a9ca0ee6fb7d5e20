package dev.vigil.coordination;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One answer a question offers: a short name to answer with ({@code vigil answer q-3 release}), a line
 * for people, and the actions the daemon applies when it is chosen (Q16), in order.
 *
 * @param name    1-32 lower-case letters, digits, {@code _} or {@code -}
 * @param label   a line for people (may be empty)
 * @param actions what choosing it does; each ticket or service named by at most one action, at most one
 *                reply; may be empty (the answer is only recorded)
 */
public record QuestionOption(String name, String label, List<Action> actions) {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

  public QuestionOption {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(label, "label");
    actions = List.copyOf(actions);
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("option name '" + name
          + "' must be 1-32 lower-case letters, digits, _ or - (starting with a letter or digit)");
    }
    if (label.indexOf('\n') >= 0 || label.indexOf('\r') >= 0 || label.length() > 200) {
      throw new IllegalArgumentException("option label of '" + name + "' must be one line of at most 200 characters");
    }
    Set<Object> targets = new HashSet<>();
    int replies = 0;
    for (Action a : actions) {
      Object target = a.ticket() != null ? a.ticket() : a.service() != null ? "service " + a.service()
          : a instanceof Action.ParkLane p ? p.lane() : a instanceof Action.UnparkLane u ? u.lane() : null;
      if (target != null && !targets.add(target)) {
        throw new IllegalArgumentException("option '" + name + "' names " + target + " in two actions");
      }
      if (a instanceof Action.Reply && ++replies > 1) {
        throw new IllegalArgumentException("option '" + name + "' has more than one reply");
      }
    }
  }

  /** The option's reply value, or {@code null} when it has none. */
  public String reply() {
    for (Action a : actions) {
      if (a instanceof Action.Reply r) {
        return r.json();
      }
    }
    return null;
  }

  /**
   * The options as lines of text, as the store keeps them: for each option a line {@code = NAME}, a line
   * {@code # LABEL} and one line {@code - ACTION} per action ({@link Action#encode()}).
   */
  public static String encodeAll(List<QuestionOption> options) {
    StringBuilder out = new StringBuilder();
    for (QuestionOption o : options) {
      out.append("= ").append(o.name()).append('\n').append("# ").append(o.label()).append('\n');
      for (Action a : o.actions()) {
        out.append("- ").append(a.encode()).append('\n');
      }
    }
    return out.toString();
  }

  /** Reads the text of {@link #encodeAll}; a one-line error names the bad line. */
  public static List<QuestionOption> decodeAll(String text) {
    List<QuestionOption> out = new java.util.ArrayList<>();
    String name = null;
    String label = null;
    List<Action> actions = new java.util.ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("= ")) {
        if (name != null) {
          out.add(new QuestionOption(name, label == null ? "" : label, actions));
        }
        name = line.substring(2);
        label = null;
        actions = new java.util.ArrayList<>();
      } else if (line.startsWith("# ") && name != null && label == null) {
        label = line.substring(2);
      } else if (line.startsWith("- ") && name != null) {
        actions.add(Action.decode(line.substring(2)));
      } else if (!line.isEmpty()) {
        throw new IllegalArgumentException("not a line of question options: '" + line + "'");
      }
    }
    if (name != null) {
      out.add(new QuestionOption(name, label == null ? "" : label, actions));
    }
    return out;
  }
}
