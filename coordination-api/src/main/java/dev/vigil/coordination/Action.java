package dev.vigil.coordination;

import java.util.Objects;

/**
 * One typed action of a question's option (Q16): what the daemon does when that option is the
 * answer. Ticket and lane actions are applied by the store in the transaction that marks the question
 * APPLIED; service actions are carried out by the daemon that applied it; a reply is handed back to
 * the worker that asked.
 *
 * <p>Each action has one line of text ({@link #encode()}, read back by {@link #decode(String)}), which
 * the store keeps and the wire carries, and one line for people ({@link #describe()}).
 */
public sealed interface Action {
  /** The one-line text of the action: {@code release t-5 3}, {@code cancel t-5}, {@code reply "yes"}. */
  String encode();

  /** What the action does, in plain words. */
  String describe();

  /** A HELD ticket becomes READY with {@code moreAttempts} attempts granted on top of its allowed ones (Q1, Q8). */
  record Release(TicketId ticket, int moreAttempts) implements Action {
    public Release {
      Objects.requireNonNull(ticket, "ticket");
      if (moreAttempts < 1 || moreAttempts > NewTicket.MAX_ATTEMPTS) {
        throw new IllegalArgumentException("moreAttempts (" + moreAttempts + ") must be 1-" + NewTicket.MAX_ATTEMPTS);
      }
    }

    @Override
    public String encode() {
      return "release " + ticket + " " + moreAttempts;
    }

    @Override
    public String describe() {
      return "release " + ticket + " with " + moreAttempts + " more attempt" + (moreAttempts == 1 ? "" : "s");
    }
  }

  /** A READY or HELD ticket is CANCELLED. */
  record Cancel(TicketId ticket) implements Action {
    public Cancel {
      Objects.requireNonNull(ticket, "ticket");
    }

    @Override
    public String encode() {
      return "cancel " + ticket;
    }

    @Override
    public String describe() {
      return "cancel " + ticket;
    }
  }

  /**
   * The ticket runs again as soon as a slot is free: a READY ticket waiting for its retry pause is due
   * now; a HELD one is released (one attempt granted when none remain, as a plain release does) and due now.
   */
  record RetryNow(TicketId ticket) implements Action {
    public RetryNow {
      Objects.requireNonNull(ticket, "ticket");
    }

    @Override
    public String encode() {
      return "retry-now " + ticket;
    }

    @Override
    public String describe() {
      return "run " + ticket + " again now";
    }
  }

  /** No ticket of the lane is claimed until it is unparked (Q9). */
  record ParkLane(Lane lane) implements Action {
    public ParkLane {
      Objects.requireNonNull(lane, "lane");
    }

    @Override
    public String encode() {
      return "park-lane " + lane.name();
    }

    @Override
    public String describe() {
      return "park lane " + lane.name();
    }
  }

  /** The lane's tickets may be claimed again. */
  record UnparkLane(Lane lane) implements Action {
    public UnparkLane {
      Objects.requireNonNull(lane, "lane");
    }

    @Override
    public String encode() {
      return "unpark-lane " + lane.name();
    }

    @Override
    public String describe() {
      return "unpark lane " + lane.name();
    }
  }

  /** The service is started again (a given-up one too), with a fresh restart budget. */
  record RestartService(String service) implements Action {
    public RestartService {
      requireName(service);
    }

    @Override
    public String encode() {
      return "restart-service " + service;
    }

    @Override
    public String describe() {
      return "restart service " + service;
    }
  }

  /** The service's worker is stopped and the service left down. */
  record StopService(String service) implements Action {
    public StopService {
      requireName(service);
    }

    @Override
    public String encode() {
      return "stop-service " + service;
    }

    @Override
    public String describe() {
      return "stop service " + service;
    }
  }

  /** The service's restart budget forgets its failures (S1); a given-up service is not started by it. */
  record ResetRestartBudget(String service) implements Action {
    public ResetRestartBudget {
      requireName(service);
    }

    @Override
    public String encode() {
      return "reset-budget " + service;
    }

    @Override
    public String describe() {
      return "reset the restart budget of service " + service;
    }
  }

  /**
   * A value handed back to the worker that asked: one line of JSON text (a string, a number, an object...),
   * at most {@value #MAX_REPLY} characters.
   */
  record Reply(String json) implements Action {
    /** The longest reply value, in characters. */
    public static final int MAX_REPLY = 4096;

    public Reply {
      Objects.requireNonNull(json, "json");
      if (json.isBlank() || json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0 || json.length() > MAX_REPLY) {
        throw new IllegalArgumentException("a reply is one non-empty line of JSON of at most " + MAX_REPLY
            + " characters");
      }
    }

    @Override
    public String encode() {
      return "reply " + json;
    }

    @Override
    public String describe() {
      return "answer the worker with " + json;
    }
  }

  /** The ticket the action is about, or {@code null}. */
  default TicketId ticket() {
    if (this instanceof Release r) {
      return r.ticket();
    } else if (this instanceof Cancel c) {
      return c.ticket();
    } else if (this instanceof RetryNow r) {
      return r.ticket();
    }
    return null;
  }

  /** The service the action is about, or {@code null}. */
  default String service() {
    if (this instanceof RestartService r) {
      return r.service();
    } else if (this instanceof StopService s) {
      return s.service();
    } else if (this instanceof ResetRestartBudget r) {
      return r.service();
    }
    return null;
  }

  /** Reads the text of {@link #encode()}; a one-line error names what is wrong. */
  static Action decode(String line) {
    Objects.requireNonNull(line, "line");
    int space = line.indexOf(' ');
    if (space < 0) {
      throw new IllegalArgumentException("not an action: '" + line + "'");
    }
    String verb = line.substring(0, space);
    String rest = line.substring(space + 1);
    return switch (verb) {
      case "release" -> {
        String[] parts = rest.split(" ", -1);
        if (parts.length != 2) {
          throw new IllegalArgumentException("not an action: '" + line + "' (release TICKET N)");
        }
        try {
          yield new Release(TicketId.parse(parts[0]), Integer.parseInt(parts[1]));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not an action: '" + line + "' (release TICKET N)");
        }
      }
      case "cancel" -> new Cancel(TicketId.parse(rest));
      case "retry-now" -> new RetryNow(TicketId.parse(rest));
      case "park-lane" -> new ParkLane(new Lane(rest));
      case "unpark-lane" -> new UnparkLane(new Lane(rest));
      case "restart-service" -> new RestartService(rest);
      case "stop-service" -> new StopService(rest);
      case "reset-budget" -> new ResetRestartBudget(rest);
      case "reply" -> new Reply(rest);
      default -> throw new IllegalArgumentException("not an action: '" + line + "' (unknown kind '" + verb + "')");
    };
  }

  private static void requireName(String service) {
    Objects.requireNonNull(service, "service");
    if (service.isEmpty() || service.chars().anyMatch(ch -> Character.isWhitespace(ch))) {
      throw new IllegalArgumentException("service name '" + service + "' must be non-empty, without spaces");
    }
  }
}
