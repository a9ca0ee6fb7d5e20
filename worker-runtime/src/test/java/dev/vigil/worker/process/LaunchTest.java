package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchTest {
  @TempDir Path tmp;

  private LaunchSpec spec(List<String> command, Map<String, String> env) throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "r-1");
    return new LaunchSpec(command, env, dir.path(), dir.stdoutLog(), dir.stderrLog());
  }

  @Test
  void aLaunchedWorkerLeadsItsOwnSessionAndGroup_readsDevNull_andGetsExactlyItsEnvironment() throws Exception {
    Map<String, String> env = Map.of("PATH", System.getenv("PATH"), "ONLY_THIS", "yes");
    LaunchedWorker w = Processes.launch(spec(List.of("sleep", "30"), env));
    try {
      long pid = w.pid();
      ProcStat s = ProcessTable.SYSTEM.stat(pid).orElseThrow();
      assertEquals(pid, s.session(), "setsid: the launched pid leads its session");
      assertEquals(pid, s.pgrp(), "setsid: the launched pid leads its group");
      assertEquals(pid, w.identity().orElseThrow().pgid());
      assertEquals(Path.of("/dev/null"), Files.readSymbolicLink(Path.of("/proc", "" + pid, "fd", "0")));
      assertEquals(RunDirectory.of(tmp, "r-1").stdoutLog(), Files.readSymbolicLink(Path.of("/proc", "" + pid, "fd", "1")));
      assertEquals(RunDirectory.of(tmp, "r-1").stderrLog(), Files.readSymbolicLink(Path.of("/proc", "" + pid, "fd", "2")));
      // /proc/PID/environ can read empty while the launch is still in its exec: read it again until it is not
      String environ = "";
      for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); environ.isEmpty() && System.nanoTime() < end; ) {
        environ = Files.readString(Path.of("/proc", "" + pid, "environ"));
        if (environ.isEmpty()) {
          Thread.sleep(10);
        }
      }
      Map<String, String> seen = new TreeMap<>();
      for (String kv : environ.split("\0")) {
        if (!kv.isEmpty()) {
          seen.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
      }
      assertEquals(new TreeMap<>(env), seen, "the environment is exactly the spec's");
    } finally {
      w.process().destroyForcibly().waitFor();
    }
  }

  @Test
  void outputIsAppendedToTheRunDirectoryFiles() throws Exception {
    LaunchSpec spec = spec(List.of("sh", "-c", "echo out; echo err >&2"), Map.of("PATH", System.getenv("PATH")));
    Files.writeString(spec.stdout(), "before\n");
    LaunchedWorker w = Processes.launch(spec);
    assertEquals(RunExit.code(0, 0).exitCode(), w.onExit().get(20, TimeUnit.SECONDS).exitCode());
    assertEquals("before\nout\n", Files.readString(spec.stdout()));
    assertEquals("err\n", Files.readString(spec.stderr()));
  }

  @Test
  void exitObservationGivesTheCodeOrTheSignal_andWatchSeesAnAdoptedWorkerDie() throws Exception {
    Map<String, String> env = Map.of("PATH", System.getenv("PATH"));
    LaunchedWorker three = Processes.launch(spec(List.of("sh", "-c", "exit 3"), env));
    assertEquals(3, three.onExit().get(20, TimeUnit.SECONDS).exitCode());

    LaunchedWorker sleeper = Processes.launch(spec(List.of("sleep", "30"), env));
    var watched = Processes.watch(sleeper.identity().orElseThrow(), 20);
    assertInstanceOf(Signalled.Sent.class, Processes.signal(sleeper.identity().orElseThrow(), GroupSignal.KILL));
    RunExit exit = sleeper.onExit().get(20, TimeUnit.SECONDS);
    assertEquals(9, exit.signal());
    RunExit seen = watched.get(20, TimeUnit.SECONDS);
    assertEquals(null, seen.exitCode(), "a watched (adopted) worker's exit code is unknown");
  }

  @Test
  void C9_theRunTokenIsRefusedOnTheCommandLine() throws Exception {
    String token = RunToken.generate();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> spec(List.of("worker", "--token=" + token), Map.of(RunToken.ENV, token)));
    assertTrue(e.getMessage().contains("environment"), e.getMessage());
  }

  @Test
  void aWorkerSurvivesTheKill9OfTheJvmThatLaunchedIt_andFinishesItsOutcome() throws Exception {
    RunId run = new RunId(new TicketId(7), 1);
    Subject subject = new Subject.Run(run.toString());
    try (TestDaemon daemon = TestDaemon.start(tmp)) {
      String token = daemon.register(subject);
      Map<String, String> env = new HashMap<>(LaunchSpec.baseEnvironment());
      env.put(RunToken.ENV, token);
      ProcessBuilder pb = new ProcessBuilder(Workers.java().toString(), "-cp", Workers.classpath(),
          LaunchAndWait.class.getName(), tmp.toString(), run.toString(), "{\"argv\":[\"sleep\",\"2\"]}")
          .redirectErrorStream(true);
      pb.environment().put(RunToken.ENV, token);
      Process launcher = pb.start();
      BufferedReader out = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertTrue(line != null && line.startsWith("launched "), "launcher said: " + line);
      long pid = Long.parseLong(line.substring("launched ".length()).trim());
      ProcessIdentity worker = Processes.identityOf(pid).orElseThrow();

      launcher.destroyForcibly();
      assertEquals(137, launcher.waitFor(), "the launcher JVM died by SIGKILL");
      assertTrue(Processes.alive(worker), "the worker outlives its launcher");

      daemon.await(subject, Message.Hello.class);
      Message.OutcomeReport report = daemon.await(subject, Message.OutcomeReport.class);
      assertInstanceOf(Outcome.Succeeded.class, report.outcome());
      Poll.until("the worker exits", () -> !Processes.alive(worker));
      OutcomeRead read = RunDirectory.of(tmp, run.toString()).readOutcome();
      assertInstanceOf(Outcome.Succeeded.class, ((OutcomeRead.Recorded) read).outcome().outcome());
    }
  }
}
