package dev.vigil.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil retry TICKET}: queues a finished ticket (SUCCEEDED, FAILED, CANCELLED or HELD) again as
 * a new ticket with the same command, lane, directory, environment, labels, attempts and time limit;
 * prints only the new ticket's id. The two name each other ({@code vigil show}). A HELD original is
 * cancelled in the same step, so it can never run beside its retry; a ticket is retried once (retry
 * the newer one to go again).
 */
@Command(name = "retry", mixinStandardHelpOptions = true, description = "Queue a finished ticket (succeeded, failed, cancelled or held) again as a new "
    + "ticket of the same work; prints only the new id. A held original is cancelled, so the two never run side by side.")
final class RetryCmd extends Main.Sub {
  @Parameters(paramLabel = "TICKET", description = "a finished ticket, like t-12")
  String ticket;

  @Override
  public Integer call() {
    ObjectNode a = Main.args();
    a.put("ticket", ticket);
    out().println(Main.call(home(), "retry", a).path("ticket").path("id").asText());
    return 0;
  }
}
