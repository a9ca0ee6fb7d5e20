package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker host's class archive with real JVMs: a real host (in a jar, as vigil.jar ships it)
 * against the stand-in daemon runs {@code true} while it writes the archive, later hosts map it,
 * and a damaged or mismatched archive is never mapped and never stops a host from starting.
 */
@Tag("slow")
class StartArchiveTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;
  private Path home;
  private TestDaemon daemon;
  private String classpath;
  private StartArchive archive;
  private int runs;

  @BeforeEach
  void setUp() throws IOException {
    home = Files.createDirectory(tmp.resolve("home"));
    daemon = TestDaemon.start(home);
    classpath = jarredClasspath(tmp.resolve("host.jar"));
    archive = new StartArchive(home.resolve("cds"), "host", Workers.java());
  }

  @AfterEach
  void tearDown() {
    daemon.close();
  }

  @Test
  void theFirstHostWritesTheArchive_andLaterHostsMapIt() throws Exception {
    java.util.Optional<Path> named = archive.archiveOf(WorkerArgs.FAST_START_FLAGS, classpath);
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, plan());
    assertEquals(named, java.util.Optional.of(create.archive()), "archiveOf names the archive the plan writes");
    assertFalse(Files.exists(create.archive()), "archiveOf made nothing");
    assertInstanceOf(StartArchive.Plan.Without.class, plan(), "a second start does not create it at the same time");
    Host first = host(create);
    assertEquals(0, first.exit(), "the host that writes the archive runs its command: " + first.stderr());
    assertTrue(archive.created(create), "the archive is checked and put in place");
    assertTrue(Files.size(create.archive()) > 100_000, "the archive holds the host's classes");
    assertTrue(Files.isRegularFile(create.archive().resolveSibling(create.archive().getFileName() + ".sum")));
    assertFalse(Files.exists(create.temporary()), "no temporary file is left");

    StartArchive.Plan.Use use = assertInstanceOf(StartArchive.Plan.Use.class, plan());
    assertEquals(create.archive(), use.archive());
    Path log = tmp.resolve("class-load.log");
    Host mapped = host(use, "-Xlog:class+load=info:file=" + log);
    assertEquals(0, mapped.exit(), mapped.stderr());
    List<String> hostClasses = Files.readAllLines(log).stream().filter(l -> l.contains("dev.vigil.worker.host.Host "))
        .toList();
    assertEquals(1, hostClasses.size(), "the host class is loaded once: " + hostClasses);
    assertTrue(hostClasses.get(0).contains("shared objects file (top)"), "it comes from the archive: " + hostClasses);
    assertNoArchiveWords(mapped);
  }

  @Test
  void aTrainingRun_writesTheArchive_thatHostsThenMap() throws Exception {
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, plan());
    Path dir = Files.createDirectory(tmp.resolve("training"));
    List<String> cmd = new ArrayList<>(List.of(Workers.java().toString()));
    cmd.addAll(WorkerArgs.FAST_START_FLAGS);
    cmd.addAll(create.flags());
    cmd.addAll(List.of("-cp", classpath, WorkerArgs.MAIN_CLASS, dev.vigil.worker.host.WorkerMain.TRAIN_ARCHIVE,
        dir.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("training.log").toFile())
        .start();
    assertTrue(p.waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "the training exits");
    assertEquals(0, p.exitValue(), "the training's host ran its command: " + Files.readString(tmp.resolve("training.log")));
    assertTrue(archive.created(create), "the training wrote a sound archive");
    StartArchive.Plan.Use use = assertInstanceOf(StartArchive.Plan.Use.class, plan());
    Host h = host(use);
    assertEquals(0, h.exit(), h.stderr());
    assertNoArchiveWords(h);
  }

  @Test
  void aTruncatedArchive_isDeletedAndMadeAgain_neverMapped() throws Exception {
    Path made = makeArchive();
    byte[] whole = Files.readAllBytes(made);
    Files.write(made, java.util.Arrays.copyOf(whole, whole.length / 2));
    // a JVM that maps a short archive dies of SIGBUS: the plan must not hand it out
    StartArchive.Plan again = plan();
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, again);
    assertFalse(Files.exists(made), "the damaged archive is deleted");
    Host h = host(create);
    assertEquals(0, h.exit(), "the host still starts and runs its command: " + h.stderr());
    assertTrue(archive.created(create));
    assertInstanceOf(StartArchive.Plan.Use.class, plan());
  }

  @Test
  void anArchiveWithTheRightSizeButOtherBytes_isNotMapped() throws Exception {
    Path made = makeArchive();
    byte[] bytes = Files.readAllBytes(made);
    for (int i = bytes.length / 3; i < bytes.length / 3 + 4096; i++) {
      bytes[i] ^= 0x5a;
    }
    made.toFile().setWritable(true);
    Files.write(made, bytes);
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, plan());
    Host h = host(create);
    assertEquals(0, h.exit(), h.stderr());
  }

  @Test
  void anArchiveOfAnotherBuild_isIgnoredSilentlyByTheJvm_andTheHostStarts() throws Exception {
    Path made = makeArchive();
    // the same archive offered to a host whose first jar is another file: the JVM sees the mismatch
    Path other = tmp.resolve("other.jar");
    Files.copy(tmp.resolve("host.jar"), other);
    Files.setLastModifiedTime(other, FileTime.fromMillis(Files.getLastModifiedTime(other).toMillis() - 60_000));
    String otherClasspath = classpath.replace(tmp.resolve("host.jar").toString(), other.toString());
    StartArchive.Plan.Use stale = new StartArchive.Plan.Use(made,
        List.of("-XX:SharedArchiveFile=" + made, StartArchive.QUIET));
    Host h = hostOn(otherClasspath, stale);
    assertEquals(0, h.exit(), "the host starts without the archive: " + h.stderr());
    assertNoArchiveWords(h);

    // and the plan for that classpath is an archive of its own, never the other one
    StartArchive.Plan forOther = archive.plan(WorkerArgs.FAST_START_FLAGS, otherClasspath, 0);
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, forOther);
    assertNotEquals(made, create.archive());
  }

  @Test
  void aClasspathWithADirectory_getsNoArchive() {
    String withDir = classpath + File.pathSeparator + tmp;
    assertInstanceOf(StartArchive.Plan.Without.class, archive.plan(WorkerArgs.FAST_START_FLAGS, withDir, 0));
    assertInstanceOf(StartArchive.Plan.Without.class,
        archive.plan(List.of("-XX:+UseSerialGC"), classpath, 0), "nor a start that cannot fall back (no -Xshare:auto)");
  }

  @Test
  void aCreatorThatWroteNothing_letsTheNextStartCreate() throws Exception {
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, plan());
    assertFalse(archive.created(create), "nothing was written (the host was never started)");
    assertInstanceOf(StartArchive.Plan.Create.class, plan());
    assertInstanceOf(StartArchive.Plan.Create.class, archive.plan(WorkerArgs.FAST_START_FLAGS, classpath,
        StartArchive.CREATE_PATIENCE_MS), "after the patience, another start may create it as well");
  }

  // ---------------------------------------------------------------- helpers

  private StartArchive.Plan plan() {
    return archive.plan(WorkerArgs.FAST_START_FLAGS, classpath, 0);
  }

  private Path makeArchive() throws Exception {
    StartArchive.Plan.Create create = assertInstanceOf(StartArchive.Plan.Create.class, plan());
    assertEquals(0, host(create).exit());
    assertTrue(archive.created(create));
    return create.archive();
  }

  private record Host(int exit, String stdout, String stderr) {}

  /** The JVM's CDS messages ("Unable to use shared archive", "[cds]") stay out of the worker's logs. */
  private static void assertNoArchiveWords(Host h) {
    String logs = (h.stdout() + h.stderr()).toLowerCase(java.util.Locale.ROOT);
    assertFalse(logs.contains("archive") || logs.contains("cds") || logs.contains("sharing"),
        "the worker's logs say nothing of the class archive: " + logs);
  }

  private Host host(StartArchive.Plan plan, String... extraFlags) throws Exception {
    return hostOn(classpath, plan, extraFlags);
  }

  /** One real worker host running {@code true}, launched as the daemon launches it, to its exit. */
  private Host hostOn(String cp, StartArchive.Plan plan, String... extraFlags) throws Exception {
    RunId run = new RunId(new TicketId(++runs), 1);
    String token = daemon.register(new Subject.Run(run.toString()));
    RunDirectory dir = RunDirectory.create(home, run.toString());
    dir.writePayload(JSON.readTree("{\"argv\":[\"true\"]}"));
    Map<String, String> env = LaunchSpec.baseEnvironment();
    env.put(RunToken.ENV, token);
    List<String> flags = new ArrayList<>(WorkerArgs.FAST_START_FLAGS);
    flags.addAll(plan.flags());
    flags.addAll(List.of(extraFlags));
    WorkerArgs args = WorkerArgs.task(home, run, 1, "command", WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD);
    LaunchedWorker w = Processes.launch(new LaunchSpec(args.command(Workers.java(), flags, cp), env, dir.path(),
        dir.stdoutLog(), dir.stderrLog()));
    assertTrue(w.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "the host exits");
    return new Host(w.process().exitValue(), Files.readString(dir.stdoutLog()), Files.readString(dir.stderrLog()));
  }

  /**
   * This JVM's classpath with its directories (worker-runtime's classes and their siblings in the
   * reactor) packed into one jar first, as vigil.jar ships them; jar entries stay as they are.
   */
  private static String jarredClasspath(Path jar) throws IOException {
    List<String> jars = new ArrayList<>();
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      java.util.Set<String> names = new java.util.HashSet<>();
      for (String e : Workers.classpath().split(File.pathSeparator)) {
        Path p = Path.of(e).toAbsolutePath();
        if (Files.isDirectory(p)) {
          try (Stream<Path> files = Files.walk(p)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
              String name = p.relativize(f).toString().replace(File.separatorChar, '/');
              if (names.add(name)) {
                out.putNextEntry(new JarEntry(name));
                try (OutputStream o = new java.io.FilterOutputStream(out) {
                  @Override
                  public void close() {}
                }) {
                  Files.copy(f, o);
                }
                out.closeEntry();
              }
            }
          }
        } else if (e.endsWith(".jar") && Files.isRegularFile(p)) {
          jars.add(p.toString());
        }
      }
    }
    jars.add(0, jar.toString());
    return String.join(File.pathSeparator, jars);
  }

  /** Only a directory made for a training is deleted as one; any other directory, a home above all, stays. */
  @org.junit.jupiter.api.Test
  void aTrainingDirectoryIsDeletedWithAllInIt_anyOtherDirectoryIsLeftAlone() throws Exception {
    Path other = Files.createDirectories(tmp.resolve("home").resolve("runs"));
    Files.writeString(other.resolve("outcome.json"), "{}");
    StartArchive.deleteTrainingDirectory(tmp.resolve("home"));
    assertTrue(Files.isRegularFile(other.resolve("outcome.json")), "a directory not made for a training stays");
    StartArchive.deleteTrainingDirectory(null);

    Path training = StartArchive.newTrainingDirectory();
    Files.writeString(Files.createDirectories(training.resolve("home").resolve("runs")).resolve("x"), "x");
    StartArchive.deleteTrainingDirectory(training);
    assertFalse(Files.exists(training), "the training directory and all in it are deleted");
  }
}
