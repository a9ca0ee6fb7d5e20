package dev.vigil.worker.process;

import java.util.Optional;

/**
 * The fields of one {@code /proc/<pid>/stat} line that Vigil reads. The command name (field 2) is
 * written in parentheses and may itself contain spaces and parentheses, so every later field is
 * counted from the <em>last</em> {@code ')'} of the line.
 *
 * @param pid        field 1
 * @param comm       field 2, without its parentheses
 * @param state      field 3: {@code R}, {@code S}, {@code D}, {@code Z} (zombie), {@code X} (dead), …
 * @param ppid       field 4
 * @param pgrp       field 5, the process group
 * @param session    field 6
 * @param startTicks field 22, start time in clock ticks since boot
 */
record ProcStat(long pid, String comm, char state, long ppid, long pgrp, long session, long startTicks) {
  /** Field number of the state, the first field after the command name. */
  private static final int STATE_FIELD = 3;
  /** Field number of the start time. */
  private static final int START_FIELD = 22;

  /** Whether the process has ended and only waits to be reaped (or is being torn down). */
  boolean exited() {
    return state == 'Z' || state == 'X' || state == 'x';
  }

  /** Parses one stat line; empty when the line is not a stat line (the process is gone mid-read). */
  static Optional<ProcStat> parse(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open <= 0 || close < open) {
      return Optional.empty();
    }
    String[] rest = line.substring(close + 1).trim().split("\\s+");
    // rest[0] is field 3 (state), so field f is rest[f - STATE_FIELD].
    if (rest.length <= START_FIELD - STATE_FIELD || rest[0].length() != 1) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ProcStat(
          Long.parseLong(line.substring(0, open).trim()),
          line.substring(open + 1, close),
          rest[0].charAt(0),
          Long.parseLong(rest[4 - STATE_FIELD]),
          Long.parseLong(rest[5 - STATE_FIELD]),
          Long.parseLong(rest[6 - STATE_FIELD]),
          Long.parseLong(rest[START_FIELD - STATE_FIELD])));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
