package dev.vigil.coordination;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A question to ask a person (Q16), before the store gave it its id.
 *
 * @param key      idempotency key: asking again with a key already used names the earlier question and
 *                 asks nothing (a worker that asks again after its daemon was replaced, a daemon that
 *                 asks about the same hold twice); at most 200 characters
 * @param text     the question, for people: one line, at most 1000 characters
 * @param askedBy  the run whose worker asked (and waits for the reply), or {@code null} when the daemon asked
 * @param ticket   the ticket the question is about, or {@code null} when it is about a service
 * @param service  the service the question is about, or {@code null} (at least one of the two is named)
 * @param options  1-16 options with distinct names
 */
public record NewQuestion(String key, String text, RunId askedBy, TicketId ticket, String service,
                          List<QuestionOption> options) {
  /** The most options a question offers. */
  public static final int MAX_OPTIONS = 16;

  public NewQuestion {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(text, "text");
    options = List.copyOf(options);
    if (key.isEmpty() || key.length() > 200) {
      throw new IllegalArgumentException("question key must be 1-200 characters");
    }
    if (text.isBlank() || text.indexOf('\n') >= 0 || text.length() > 1000) {
      throw new IllegalArgumentException("question text must be one non-empty line of at most 1000 characters");
    }
    if (ticket == null && service == null) {
      throw new IllegalArgumentException("a question is about a ticket or a service");
    }
    if (askedBy != null && ticket != null && !askedBy.ticket().equals(ticket)) {
      throw new IllegalArgumentException("a question asked by run " + askedBy + " is about its own ticket, not "
          + ticket);
    }
    if (options.isEmpty() || options.size() > MAX_OPTIONS) {
      throw new IllegalArgumentException("a question offers 1-" + MAX_OPTIONS + " options, not " + options.size());
    }
    Set<String> names = new HashSet<>();
    for (QuestionOption o : options) {
      if (!names.add(o.name())) {
        throw new IllegalArgumentException("two options are named '" + o.name() + "'");
      }
    }
  }

  /** The question a worker of {@code run} asks: about its own ticket. */
  public static NewQuestion byWorker(RunId run, String key, String text, List<QuestionOption> options) {
    return new NewQuestion(key, text, run, run.ticket(), null, options);
  }
}
