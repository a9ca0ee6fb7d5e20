package dev.vigil.supervisor.engine;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;

/**
 * Q16 in the simulation, among daemon crashes (at any step and at any verb, before or after its commit),
 * store outages and new builds: the daemon asks about held tickets and given-up services, operators answer
 * (the simulation's {@code ANSWER} knob), and every answer is applied exactly once by a daemon, also when the
 * daemon died between the answer and the apply or inside the apply; once faults stop, an up daemon has
 * applied every answer and asked about every held ticket.
 */
class QuestionSimulationTest {
  @Test
  void Q16_answersAmongCrashes_areAppliedExactlyOnce_alsoByTheNextDaemon() {
    Tally tally = new Tally("Q16");
    qt().withExamples(500).withShrinkCycles(0).forAll(longs().all())
        .checkAssert(seed -> tally.add(Simulation.run(Simulation.Profile.CRASHES, seed).seen()));
    tally.assertSaw("answer recorded: retry", "answer recorded: release", "answer recorded: cancel",
        "answer refused: no such option", "answer to no question", "questions applied",
        "verb crash at applyAnswer before commit", "verb crash at applyAnswer after commit",
        "verb crash at answer before commit", "verb crash at ask after commit", "every ticket settled");
  }
}
