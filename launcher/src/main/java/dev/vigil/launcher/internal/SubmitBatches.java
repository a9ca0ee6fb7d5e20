package dev.vigil.launcher.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.protocol.Message;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The submissions of {@code vigil submit --file}, sent as {@code submit-all} commands: each batch is
 * one round trip and one transaction in the daemon, all of it queued or none. A batch holds at most
 * {@value #MAX_TICKETS} submissions and {@link #BUDGET_BYTES} bytes of them, so that it fits in one
 * frame with room to spare and the daemon is never busy with one for long; most files are one batch.
 * A file that needs several is queued batch by batch: if one is refused, the batches before it stay
 * queued (their ids are printed) and the message says from which line on nothing was queued.
 */
public final class SubmitBatches {
  /** The most submissions in one batch. */
  static final int MAX_TICKETS = 2_000;
  /** The most bytes of submissions in one batch: half a frame. */
  static final int BUDGET_BYTES = Message.Command.MAX_FRAME_BYTES / 2;
  /** The largest one submission may be, bytes: a frame less room for the envelope. */
  static final int LARGEST_BYTES = Message.Command.MAX_FRAME_BYTES - 4_096;
  /** The longest idempotency key, characters (as {@code NewTicket} checks it). */
  public static final int MAX_KEY = 200;

  private SubmitBatches() {}

  /**
   * Consecutive lines of the file and their submissions.
   *
   * @param firstLine the line number of the first submission
   * @param lastLine  the line number of the last
   * @param numbers   the line number of each submission
   */
  public record Batch(int firstLine, int lastLine, List<ObjectNode> tickets, List<Integer> numbers) {
    public Batch {
      tickets = List.copyOf(tickets);
      numbers = List.copyOf(numbers);
    }
  }

  /**
   * Splits the submissions (one per line, in order) into batches.
   *
   * @throws IllegalArgumentException {@code --file NAME: line N: …} when one submission alone is too
   *                                  large to send
   */
  public static List<Batch> plan(String name, List<CommandFile.Line> lines, List<ObjectNode> tickets) {
    if (lines.size() != tickets.size()) {
      throw new IllegalArgumentException("one submission per line: " + lines.size() + " lines, " + tickets.size());
    }
    List<Batch> out = new ArrayList<>();
    int from = 0;
    long bytes = 0;
    for (int i = 0; i < tickets.size(); i++) {
      int size = size(tickets.get(i)) + 1;
      if (size > LARGEST_BYTES) {
        throw new IllegalArgumentException("--file " + name + ": line " + lines.get(i).number() + ": the command is too "
            + "long to send (" + size + " bytes; at most " + LARGEST_BYTES + ")");
      }
      if (i > from && (i - from == MAX_TICKETS || bytes + size > BUDGET_BYTES)) {
        out.add(batch(lines, tickets, from, i));
        from = i;
        bytes = 0;
      }
      bytes += size;
    }
    out.add(batch(lines, tickets, from, tickets.size()));
    return out;
  }

  private static Batch batch(List<CommandFile.Line> lines, List<ObjectNode> tickets, int from, int to) {
    return new Batch(lines.get(from).number(), lines.get(to - 1).number(), tickets.subList(from, to),
        lines.subList(from, to).stream().map(CommandFile.Line::number).toList());
  }

  private static int size(ObjectNode ticket) {
    try {
      return Wire.JSON.writeValueAsBytes(ticket).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Sends the batches in order over {@code client} and prints each ticket id on its own line as its
   * batch is queued.
   *
   * @throws Client.Failure exit 3 when the daemon does not take batches; a refused batch's failure,
   *                        saying which lines were and were not queued
   */
  public static void send(Client client, String name, List<Batch> batches, PrintStream out) {
    Objects.requireNonNull(client, "client");
    if (!client.capabilities().capabilities().contains(Daemon.SUBMIT_ALL)) {
      throw new Client.Failure(3, "the daemon (vigil " + client.capabilities().version() + ") cannot queue a file of "
          + "commands; nothing was queued (vigil up replaces an idle older daemon with this vigil)");
    }
    java.util.Map<Integer, String> idOfLine = new java.util.HashMap<>();
    for (int b = 0; b < batches.size(); b++) {
      Batch batch = batches.get(b);
      ObjectNode args = Wire.JSON.createObjectNode();
      ArrayNode ts = args.putArray("tickets");
      batch.tickets().forEach(t -> ts.add(waitsResolved(t, batch, idOfLine)));
      JsonNode reply;
      try {
        reply = Client.ok(client.call("submit-all", args));
      } catch (Client.Failure f) {
        String where = b == 0 ? "nothing was queued"
            : "lines up to " + batches.get(b - 1).lastLine() + " were queued (their ids are above); nothing from line "
                + batch.firstLine() + " on was";
        throw new Client.Failure(f.exitCode(), "--file " + name + ": " + f.getMessage().replaceFirst(
            "; nothing was queued$", "") + "; " + where);
      }
      JsonNode ids = reply.path("tickets");
      if (ids.size() != batch.tickets().size()) {
        throw new Client.Failure(1, "--file " + name + ": the daemon answered " + ids.size() + " ids for "
            + batch.tickets().size() + " commands (lines " + batch.firstLine() + "-" + batch.lastLine() + ")");
      }
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i < ids.size(); i++) {
        idOfLine.put(batch.numbers().get(i), ids.get(i).path("id").asText());
      }
      ids.forEach(t -> lines.append(t.path("id").asText()).append('\n'));
      out.print(lines);
      out.flush();
    }
  }

  /**
   * The submission as sent: each line it waits for ({@code afterLines}, from {@link CommandFile#after})
   * becomes the place of that line's submission in this batch ({@code afterIndex}), or, for a line of
   * an earlier batch, already queued, that line's ticket ({@code after}).
   */
  static ObjectNode waitsResolved(ObjectNode ticket, Batch batch, java.util.Map<Integer, String> idOfLine) {
    if (!ticket.has("afterLines")) {
      return ticket;
    }
    ObjectNode t = ticket.deepCopy();
    JsonNode lines = t.remove("afterLines");
    for (JsonNode l : lines) {
      String queued = idOfLine.get(l.intValue());
      if (queued != null) {
        (t.has("after") ? (ArrayNode) t.get("after") : t.putArray("after")).add(queued);
      } else {
        int place = batch.numbers().indexOf(l.intValue());
        if (place < 0) {
          throw new IllegalStateException("line " + l + " is neither queued nor in this batch");
        }
        (t.has("afterIndex") ? (ArrayNode) t.get("afterIndex") : t.putArray("afterIndex")).add(place);
      }
    }
    return t;
  }
}
