package dev.vigil.supervisor.engine;

/**
 * Where the answer to one client command goes (the launcher writes it to the client's connection).
 * The engine calls it exactly once per command: during {@link Engine#onClientCommand} for every
 * command except {@link Command.Shutdown}, whose answer may come from a later tick. Called on the
 * scheduling thread; must not block.
 */
@FunctionalInterface
public interface ReplyTo {
  void reply(Reply reply);
}
