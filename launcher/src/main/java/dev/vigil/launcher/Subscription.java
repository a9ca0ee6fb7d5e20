package dev.vigil.launcher;

/** A listener registered with {@link Vigil#events}; closing it stops delivery (an event being delivered ends first). */
public interface Subscription extends AutoCloseable {
  /** The id of the last event handed to this listener, set before it is called (its {@code afterId} when none yet). */
  long lastId();

  @Override
  void close();
}
