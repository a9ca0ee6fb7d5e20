package dev.vigil.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Action;
import dev.vigil.coordination.QuestionOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A question a running task asks a person ({@link WorkContext#ask}): one line of text and the options to
 * answer with. Each option hands a value back to the worker when chosen; it may also carry actions the
 * daemon applies with the answer (park a lane, for example), as any question's options do.
 *
 * <pre>{@code
 * Optional<Answer> a = ctx.ask(Question.of("Deploy to production?")
 *     .option("yes", "deploy now", true)
 *     .option("no", "stop here", false));
 * }</pre>
 *
 * @param text    the question: one line, at most 1000 characters
 * @param options the options, in order
 */
public record Question(String text, List<QuestionOption> options) {
  public Question {
    Objects.requireNonNull(text, "text");
    options = List.copyOf(options);
  }

  /** A question without options yet: add them with {@link #option}. */
  public static Question of(String text) {
    return new Question(text, List.of());
  }

  /**
   * This question with one more option: {@code name} to answer with, {@code label} for people, and the
   * {@code value} handed back to the worker when it is chosen (any JSON value, a String, a number, a record...,
   * written as {@link JsonBinding} writes results), then {@code actions} for the daemon.
   */
  public Question option(String name, String label, Object value, Action... actions) {
    List<Action> all = new ArrayList<>();
    all.add(new Action.Reply(JsonBinding.toJson(value).toString()));
    all.addAll(List.of(actions));
    List<QuestionOption> more = new ArrayList<>(options);
    more.add(new QuestionOption(name, label, all));
    return new Question(text, more);
  }

  /** The answer a person gave: the option's name and the value it hands back (JSON {@code null} when it has none). */
  public record Answer(String option, JsonNode value) {
    public Answer {
      Objects.requireNonNull(option, "option");
      Objects.requireNonNull(value, "value");
    }

    /** The value bound to {@code type}, as {@link WorkContext#payload(Class)} binds a payload. */
    public <T> T value(Class<T> type) {
      return JsonBinding.bind(value, type, "answer", PayloadBindingException::new);
    }
  }
}
