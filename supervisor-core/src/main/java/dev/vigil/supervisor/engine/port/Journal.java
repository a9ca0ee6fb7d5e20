package dev.vigil.supervisor.engine.port;

import dev.vigil.supervisor.engine.EngineEvent;

/**
 * Where the engine records what it did and what it observed, one {@link EngineEvent} at a time: the
 * launcher logs each event (SLF4J), tests count them. Recording decides nothing.
 *
 * <p>Threading: called only on the scheduling thread; must not block.
 */
public interface Journal {
  void record(EngineEvent event);
}
