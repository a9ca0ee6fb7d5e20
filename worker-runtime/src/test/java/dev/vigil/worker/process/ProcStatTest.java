package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import org.junit.jupiter.api.Test;

class ProcStatTest {
  private static String line(long pid, String comm, char state, long pgrp, long start) {
    // fields 1..22 then a few more, as the kernel writes them
    return pid + " (" + comm + ") " + state + " 1 " + pgrp + " " + pgrp + " 0 -1 4194560 120 0 0 0 3 1 0 0 20 0 1 0 "
        + start + " 8192000 250 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  }

  @Test
  void fieldsAreCountedFromTheLastParenthesis_whenTheCommandNameHasSpacesAndParentheses() {
    ProcStat s = ProcStat.parse(line(4242, "a) b (c", 'S', 4240, 987654)).orElseThrow();
    assertEquals(4242, s.pid());
    assertEquals("a) b (c", s.comm());
    assertEquals('S', s.state());
    assertEquals(4240, s.pgrp());
    assertEquals(987654, s.startTicks());
  }

  @Test
  void anyCommandNameParses() {
    qt().withExamples(2_000)
        .forAll(strings().basicLatinAlphabet().ofLengthBetween(0, 15), longs().between(1, 4_194_304),
            longs().between(0, Long.MAX_VALUE / 2), integers().between(0, 3))
        .checkAssert((comm, pid, start, st) -> {
          char state = "RSZD".charAt(st);
          ProcStat s = ProcStat.parse(line(pid, comm, state, pid, start)).orElseThrow();
          assertEquals(comm, s.comm());
          assertEquals(pid, s.pgrp());
          assertEquals(start, s.startTicks());
          assertEquals(state == 'Z', s.exited());
        });
  }

  @Test
  void aTruncatedLineIsNotAStatLine() {
    String full = line(7, "x", 'R', 7, 5);
    for (int cut = 0; cut < full.indexOf(" 8192000"); cut++) {
      assertTrue(ProcStat.parse(full.substring(0, cut)).isEmpty(), "prefix of length " + cut + " must not parse");
    }
  }
}
