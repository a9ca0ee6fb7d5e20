package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.protocol.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a whole list ({@code list} of tickets, {@code runs}) page by page, each page asking for the
 * items after the last id seen, so that no reply grows past the protocol's frame limit however
 * many tickets and runs a home holds. When a page is still too large (big payloads), it asks for
 * fewer at a time.
 */
public final class Pages {
  /** Items asked for per page at first. */
  static final int FIRST_PAGE = 200;

  private Pages() {}

  /**
   * Every item of {@code op}'s reply array {@code field}, in id order.
   *
   * @throws Client.Failure as {@link Client#ok}, or when even a one-item page is too large
   */
  public static List<JsonNode> all(Client client, String op, ObjectNode args, String field) {
    return all(a -> client.call(op, a), op, args, field);
  }

  /** As {@link #all(Client, String, ObjectNode, String)}, each page asked of {@code call}. */
  public static List<JsonNode> all(java.util.function.Function<ObjectNode, ObjectNode> call, String op, ObjectNode args,
      String field) {
    List<JsonNode> out = new ArrayList<>();
    int limit = FIRST_PAGE;
    String after = null;
    while (true) {
      ObjectNode a = args.deepCopy();
      a.put("limit", limit);
      if (after != null) {
        a.put("after", after);
      }
      JsonNode page;
      try {
        page = Client.ok(call.apply(a)).path(field);
      } catch (Client.Failure f) {
        if (limit > 1 && Message.Error.isTooLong(f.getMessage())) {
          limit = Math.max(1, limit / 8);
          continue;
        }
        throw f;
      }
      page.forEach(out::add);
      if (page.size() < limit) {
        return out;
      }
      after = page.get(page.size() - 1).path("id").asText();
    }
  }
}
