package dev.vigil.coordination.schedule;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** A policy's name as written in the configuration and on the command line: its constant in lower case. */
final class Words {
  private Words() {}

  static String word(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The constant of {@code values} whose word is {@code text}.
   *
   * @throws IllegalArgumentException one line naming {@code what}, the text and the words allowed
   */
  static <E extends Enum<E>> E parse(E[] values, String text, String what) {
    for (E e : values) {
      if (word(e).equals(text)) {
        return e;
      }
    }
    List<String> words = Arrays.stream(values).map(Words::word).toList();
    throw new IllegalArgumentException(what + " '" + text + "' is not " + String.join(", ", words.subList(0, words.size() - 1))
        + " or " + words.get(words.size() - 1));
  }
}
