package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A worker's group is signalled whatever its id, also one that is a signal number too (1 to 64), as
 * the groups of a container's first processes are. Each case runs in a new PID namespace
 * ({@code unshare}, as root), where the first processes have pids that small; skipped with the
 * reason where the machine does not allow one.
 */
class SmallGroupIdsTest {
  /** Runs {@code script} as the first process of a new PID namespace, with {@code args} as "$@"; its output. */
  private static String inNewPidNamespace(String script, List<String> args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc", "/bin/sh", "-c", script, "sh"));
    argv.addAll(args);
    Process p;
    try {
      p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    } catch (IOException e) {
      Assumptions.abort("no unshare here: " + e.getMessage());
      throw e;
    }
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the namespace's script ended");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0 && out.contains("unshare")) {
      Assumptions.abort("this machine allows no new PID namespace here (" + out.trim() + ")");
    }
    return out;
  }

  @Test
  void theKillCommandReachesAGroupWhoseIdIsAlsoASignalNumber() throws Exception {
    for (GroupSignal signal : GroupSignal.values()) {
      // a group of two (a leader and its child) whose id is the namespace's pid 2, 3 or so
      String out = inNewPidNamespace("setsid sh -c 'sleep 300 & wait' & leader=$!; sleep 0.5; "
          + "echo group $leader; \"$@\" -$leader; echo status $?; sleep 0.5; "
          + "if ps -e -o pid= -o pgid= | awk -v g=$leader '$2 == g' | grep -q .; then echo alive; else echo ended; fi",
          Processes.killCommand(signal));
      List<String> lines = out.lines().toList();
      int group = Integer.parseInt(lines.stream().filter(l -> l.startsWith("group ")).findFirst().orElseThrow()
          .substring("group ".length()));
      assertTrue(group > 0 && group <= 64, "the group id is a signal number too: " + out);
      assertTrue(lines.contains("status 0"), signal + ": kill reported success: " + out);
      assertTrue(lines.contains("ended"), signal + ": every process of group " + group + " ended: " + out);
    }
  }

  @Test
  void theKillCommandSignalsOnlyItsTarget() throws Exception {
    // a bystander in its own group, and the target group: the bystander lives on
    String out = inNewPidNamespace("setsid sleep 300 & bystander=$!; setsid sleep 300 & target=$!; sleep 0.5; "
        + "\"$@\" -$target; sleep 0.5; "
        + "kill -0 $bystander 2>/dev/null && echo bystander alive; kill -0 $target 2>/dev/null || echo target ended",
        Processes.killCommand(GroupSignal.KILL));
    assertEquals(List.of("bystander alive", "target ended"), out.lines().toList(), out);
  }

  @Test
  void aProcessInAGroupLedFromOutsideItsNamespaceIsToldWhatToDo_andInASessionOfItsOwnHasAnIdentity() throws Exception {
    List<String> probe = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SelfIdentityProbe.class.getName());
    // the namespace's first process keeps the group of whoever ran unshare: that group reads as 0 inside
    String outside = inNewPidNamespace("\"$@\"", probe);
    assertTrue(outside.contains("refused: ") && outside.contains("led from outside its pid namespace")
        && outside.contains("setsid"), outside);
    String own = inNewPidNamespace("setsid \"$@\"", probe);
    assertTrue(own.lines().anyMatch(l -> l.matches("pgid [1-9][0-9]*")), own);
  }
}
