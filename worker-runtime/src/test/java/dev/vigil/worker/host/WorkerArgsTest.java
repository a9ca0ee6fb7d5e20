package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import dev.vigil.supervisor.OutputBound;
import org.junit.jupiter.api.Test;

class WorkerArgsTest {
  private static final Path HOME = Path.of("/var/vigil");

  @Test
  void theCommandLineRoundTrips_andCarriesNoSecret() {
    WorkerArgs task = WorkerArgs.task(HOME, new RunId(new TicketId(12), 3), 2, "command", new WorkerTypeSpec.Command(42), "b7")
        .withTimeouts(Map.of(Timeout.LAUNCH_HANDOFF, 2_500L, Timeout.QUIESCE_HOLD, 45_000L));
    assertEquals(task, WorkerArgs.parse(task.toArgv().toArray(String[]::new)));
    assertEquals(Optional.of(new TicketId(12)), task.ticket());
    WorkerArgs bounded = task.withOutput(new OutputBound(1L << 20));
    assertEquals(bounded, WorkerArgs.parse(bounded.toArgv().toArray(String[]::new)));
    assertTrue(bounded.toArgv().containsAll(List.of("--max-output", "1MiB")), "the bound is on the command line");
    assertFalse(task.toArgv().contains("--max-output"), "the default bound is not written");
    WorkerArgs session = task.withSession("chat");
    assertEquals(session, WorkerArgs.parse(session.toArgv().toArray(String[]::new)));
    assertEquals(Optional.empty(), session.ticket());
    WorkerArgs declared = WorkerArgs.task(HOME, new RunId(new TicketId(12), 3), 2, "mine",
        new WorkerTypeSpec.Declared("com.example.Mine"), "b7");
    assertEquals(declared, WorkerArgs.parse(declared.toArgv().toArray(String[]::new)));
    List<String> cmd = task.command(Path.of("/usr/bin/java"), WorkerArgs.FAST_START_FLAGS, "a.jar:lib/b.jar");
    assertEquals("/usr/bin/java", cmd.get(0));
    assertTrue(cmd.contains(WorkerArgs.MAIN_CLASS));
    String cp = cmd.get(cmd.indexOf("-cp") + 1);
    assertTrue(cp.startsWith("/") && cp.contains(":/"), "classpath entries are absolute: " + cp);
    assertTrue(cmd.stream().noneMatch(a -> a.toLowerCase().contains("token")), "no secret on the command line (C9)");
  }

  @Test
  void theTaskRunsTicketIsDerivedFromItsRunId() {
    WorkerArgs a = WorkerArgs.parse(new String[] {"--home", "/h", "--run", "t-5.2", "--type", "command", "--build", "b"});
    assertEquals(Optional.of(new TicketId(5)), a.ticket());
    assertEquals(Path.of("/h/vigil.sock"), a.socket());
    assertEquals(1, a.attempt());
  }

  @Test
  void badArgumentsAreNamedOnOneLine() {
    assertBad("--home is required", "--run", "t-1.1", "--type", "command", "--build", "b");
    assertBad("unknown argument --colour", "--home", "/h", "--colour", "red");
    assertBad("--attempt (0) must be >= 1", "--home", "/h", "--run", "r", "--type", "command", "--build", "b", "--attempt", "0");
    assertBad("--attempt 'x' must be a whole number", "--attempt", "x");
    assertBad("--timeout: no timeout is called 'nap'", "--timeout", "nap=1s");
    assertBad("bad duration \"soon\"", "--timeout", "lostExit=soon");
    assertBad("--type: worker type 'a b' must be", "--home", "/h", "--run", "r", "--type", "a b", "--build", "b");
    assertBad("lostExit (1s) must be", "--home", "/h", "--run", "r", "--type", "command", "--build", "b", "--timeout", "lostExit=1s");
    assertBad("--home needs a value", "--home");
    assertBad("--max-output: maxOutput (1KiB) must be between 64KiB and 1TiB", "--max-output", "1KiB");
    assertBad("--max-output: bad size \"lots\"", "--max-output", "lots");
    assertBad("--class and --stall-exit-code exclude each other", "--home", "/h", "--run", "r", "--type", "t", "--build", "b",
        "--class", "a.B", "--stall-exit-code", "3");
    assertBad("--stall-exit-code: stallExitCode (300) must be", "--home", "/h", "--run", "r", "--type", "t", "--build", "b",
        "--stall-exit-code", "300");
  }

  @Test
  void aTypeNameTheConfigurationRejects_isRejectedOnTheWorkersCommandLineToo() {
    for (String name : List.of("-x", ".x", "_x", "t".repeat(65))) {
      assertBad("--type", "--home", "/h", "--run", "r", "--type", name, "--build", "b");
    }
  }

  private static void assertBad(String start, String... argv) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WorkerArgs.parse(argv));
    assertTrue(e.getMessage().startsWith(start), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }
}
