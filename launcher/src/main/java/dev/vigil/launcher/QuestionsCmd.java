package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Answering;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.h2.CoordinationStoreException;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.StoreOps;
import dev.vigil.launcher.internal.Wire;
import java.nio.file.Files;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil questions [--all] [--json]} and {@code vigil answer QUESTION OPTION} (Q16): questions for a
 * person, asked by a task's worker or by the daemon (a task held, a service given up). Answering only records
 * the answer: the daemon applies it, once. With no daemon running, both read and write the store directly
 * (holding the daemon's lock meanwhile), and the next daemon applies the answer when it starts.
 */
final class QuestionsCmd {
  private QuestionsCmd() {}

  /** Runs {@code stopped} on the store when no daemon runs, else {@code running} on a connection to the daemon. */
  static <T> T onStoreOrDaemon(Home h, Function<H2Coordination, T> stopped, Function<Client, T> running) {
    return StoreOps.stoppedOrRunning(h, Main.waitDaemonMs(), () -> {
      if (!Files.exists(h.databaseFile())) {
        throw new Client.Failure(2, "there is no store at " + h.databaseFile() + " (a daemon makes it when it first "
            + "starts)");
      }
      try (H2Coordination store = H2Coordination.open(h.databaseFile(), H2Options.defaults())) {
        return stopped.apply(store);
      } catch (CoordinationStoreException e) {
        throw new Client.Failure(1, Wire.oneLine(e.getMessage()));
      }
    }, running);
  }

  @Command(name = "questions", mixinStandardHelpOptions = true, description = {"Questions waiting for a person: "
      + "asked by a task while it runs (it waits for the answer), or by the daemon about a task it holds or a "
      + "service it gave up. Each offers options; answer with vigil answer QUESTION OPTION.",
      "Works with the daemon stopped too (it reads the store)."},
      footer = {"", "Examples:", "  vigil questions", "  vigil answer q-3 retry", "  vigil questions --all --json"})
  static final class ListCmd extends Main.Sub {
    @Option(names = "--all", description = "also the questions answered already, with what the daemon did")
    boolean all;

    @Option(names = "--json", description = Main.JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ArrayNode questions = onStoreOrDaemon(home(), store -> {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        store.store().questions(all ? Set.of() : Set.of(Question.State.OPEN)).forEach(q -> a.add(Wire.question(q)));
        return a;
      }, client -> {
        ObjectNode args = Main.args();
        args.put("all", all);
        return (ArrayNode) Client.ok(client.call("questions", args)).path("questions");
      });
      if (json) {
        out().println(questions.toString());
      } else if (questions.isEmpty()) {
        out().println(all ? "no questions" : "no open questions");
      } else {
        for (JsonNode q : questions) {
          Views.questionLines(q).forEach(out()::println);
        }
      }
      return 0;
    }
  }

  @Command(name = "answer", mixinStandardHelpOptions = true, description = {"Answer a question with one of its "
      + "options. This records the answer only; the daemon then does what the option says (release, cancel, run "
      + "again, park a lane, restart a service, or hand a value back to the task that asked), once. Parts that "
      + "no longer make sense (a task released by hand meanwhile) are skipped, and vigil questions --all says so.",
      "With the daemon stopped, the answer is written to the store and applied when the daemon starts.",
      "An answer is given once: a second one is refused (exit 3)."},
      footer = {"", "Examples:", "  vigil answer q-3 retry", "  vigil answer 3 cancel"})
  static final class AnswerCmd extends Main.Sub {
    @Parameters(index = "0", paramLabel = "QUESTION", description = "the question's id (like q-3)")
    String question;

    @Parameters(index = "1", paramLabel = "OPTION", description = "the name of one of its options")
    String option;

    @Option(names = "--json", description = Main.JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      QuestionId id = Wire.questionId(question);
      ObjectNode reply = onStoreOrDaemon(home(), store -> {
        Answering a = store.answer(id, option, System.currentTimeMillis());
        if (a instanceof Answering.Answered done) {
          ObjectNode o = JsonNodeFactory.instance.objectNode();
          o.put("kind", "QuestionAnswered");
          o.set("question", Wire.question(done.question()));
          o.put("message", Wire.answeredLine(done.question()) + " when it starts");
          return o;
        } else if (a instanceof Answering.Denied d) {
          throw new Client.Failure(d.reason() == Answering.Reason.ALREADY_ANSWERED ? 3 : 2,
              (d.reason() == Answering.Reason.ALREADY_ANSWERED ? "denied: " : "") + d.line(id, option));
        }
        throw new AssertionError(a);
      }, client -> {
        ObjectNode args = Main.args();
        args.put("question", id.toString());
        args.put("option", option);
        return Client.ok(client.call("answer", args));
      });
      out().println(json ? reply.toString() : reply.path("message").asText());
      return 0;
    }
  }
}
