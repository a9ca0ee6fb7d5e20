package dev.vigil.bridge;

import dev.vigil.supervisor.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What one worker of a scenario does, written as a person would say it. For a task attempt:
 *
 * <pre>
 * exit CODE [after D]        0 succeeded, 75 stalled for 1m, anything else failed
 * stall D [after D]          STALLED: the ticket is due again D later (Q2)
 * blocked [after D]          BLOCKED: held for a human
 * permanent [after D]        PERMANENT_FAILURE
 * no-outcome [after D]       the worker host exits without writing an outcome
 * crash [after D]            the worker host is killed (kill -9 of itself): no outcome
 * hang                       works until it is stopped
 * </pre>
 *
 * where {@code until told} may stand for {@code after D}: the work goes on until the scenario's
 * {@code tell LABEL} (so a scenario never races the clock), followed by any of {@code ignore-term}
 * (the host ignores TERM: only KILL ends it) and {@code fork D} or {@code fork until told} (a
 * grandchild in the worker's process group, started a third of the way through a timed run,
 * outlives the host by D, or until {@code tell LABEL fork}). For a service
 * worker: {@code serve} (serve work until stopped) or {@code crash after D} (die D after it began
 * serving). Run times count from the worker's go (Q3). A stop request (park, an operator's stop,
 * TERM) is not answered with an outcome: the worker ends without one, as a worker that cannot reach
 * a safe point does.
 *
 * @param ending     how the work ends
 * @param code       the exit code of {@link Ending#EXIT}
 * @param afterMs    how long the work takes, ms (0 for {@link Ending#HANG} and {@link Ending#SERVE});
 *                   {@link #TOLD} for "until told"
 * @param stallForMs for {@link Ending#STALL}, how long the ticket is held back, ms
 * @param ignoreTerm the host ignores TERM
 * @param forkMs     a grandchild outlives the host by this much, ms; -1 for none; {@link #TOLD} for
 *                   "until told"
 */
public record Behaviour(Ending ending, int code, long afterMs, long stallForMs, boolean ignoreTerm, long forkMs) {
  /** How the work of one worker ends. */
  public enum Ending { EXIT, STALL, BLOCKED, PERMANENT, NO_OUTCOME, CRASH, HANG, SERVE }

  /** The exit code that means stalled, as the built-in command type has it. */
  public static final int STALL_CODE = 75;
  /** The hold-back of {@code exit 75}, ms. */
  public static final long DEFAULT_STALL_MS = 60_000;
  /** The duration that stands for "until told". */
  public static final long TOLD = Long.MAX_VALUE / 4;

  public Behaviour {
    Objects.requireNonNull(ending, "ending");
    if (afterMs < 0 || stallForMs < 0 || forkMs < -1) {
      throw new IllegalArgumentException("durations must be >= 0");
    }
  }

  /** A task worker that exits with {@code code} after {@code ms}. */
  public static Behaviour exit(int code, long ms) {
    return new Behaviour(Ending.EXIT, code, ms, code == STALL_CODE ? DEFAULT_STALL_MS : 0, false, -1);
  }

  /** A service worker that serves until stopped. */
  public static Behaviour serve() {
    return new Behaviour(Ending.SERVE, 0, 0, 0, false, -1);
  }

  /**
   * Parses a behaviour.
   *
   * @throws IllegalArgumentException naming what was wrong
   */
  public static Behaviour parse(String text) {
    String[] w = text.trim().toLowerCase(Locale.ROOT).split("\\s+");
    int i = 0;
    Ending ending;
    int code = 0;
    long stall = 0;
    switch (w[i++]) {
      case "exit" -> {
        ending = Ending.EXIT;
        code = Integer.parseInt(word(w, i++, text));
        if (code < 0 || code > 255) {
          throw new IllegalArgumentException("'" + text + "': an exit code is 0-255");
        }
        stall = code == STALL_CODE ? DEFAULT_STALL_MS : 0;
      }
      case "stall" -> {
        ending = Ending.STALL;
        stall = Durations.parse(word(w, i++, text));
      }
      case "blocked" -> ending = Ending.BLOCKED;
      case "permanent" -> ending = Ending.PERMANENT;
      case "no-outcome" -> ending = Ending.NO_OUTCOME;
      case "crash" -> ending = Ending.CRASH;
      case "hang" -> ending = Ending.HANG;
      case "serve" -> ending = Ending.SERVE;
      default -> throw new IllegalArgumentException("'" + text + "': a behaviour starts with exit, stall, blocked, "
          + "permanent, no-outcome, crash, hang or serve");
    }
    long after = 0;
    boolean ignoreTerm = false;
    long fork = -1;
    while (i < w.length) {
      switch (w[i++]) {
        case "after" -> after = Durations.parse(word(w, i++, text));
        case "until" -> {
          if (!word(w, i++, text).equals("told")) {
            throw new IllegalArgumentException("'" + text + "': write 'until told'");
          }
          after = TOLD;
        }
        case "ignore-term" -> ignoreTerm = true;
        case "fork" -> {
          if (word(w, i, text).equals("until")) {
            i++;
            if (!word(w, i++, text).equals("told")) {
              throw new IllegalArgumentException("'" + text + "': write 'fork until told'");
            }
            fork = TOLD;
          } else {
            fork = Durations.parse(word(w, i++, text));
          }
        }
        default -> throw new IllegalArgumentException("'" + text + "': unknown word '" + w[i - 1] + "'");
      }
    }
    if (fork >= 0 && after == TOLD) {
      throw new IllegalArgumentException("'" + text + "': a fork starts a third of the way through a timed run");
    }
    return new Behaviour(ending, code, after, stall, ignoreTerm, fork);
  }

  /** Whether the work goes on until the scenario tells it to end. */
  public boolean untilTold() {
    return afterMs == TOLD;
  }

  private static String word(String[] w, int i, String text) {
    if (i >= w.length) {
      throw new IllegalArgumentException("'" + text + "' ends too early");
    }
    return w[i];
  }

  /** As {@link #parse} reads it. */
  @Override
  public String toString() {
    List<String> w = new ArrayList<>();
    switch (ending) {
      case EXIT -> w.add("exit " + code);
      case STALL -> w.add("stall " + Durations.format(stallForMs));
      default -> w.add(ending.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    if (afterMs == TOLD) {
      w.add("until told");
    } else if (afterMs > 0) {
      w.add("after " + Durations.format(afterMs));
    }
    if (ignoreTerm) {
      w.add("ignore-term");
    }
    if (forkMs == TOLD) {
      w.add("fork until told");
    } else if (forkMs >= 0) {
      w.add("fork " + Durations.format(forkMs));
    }
    return String.join(" ", w);
  }
}
