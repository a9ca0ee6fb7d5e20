package dev.vigil.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.bridge.JarBuilds.Build;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.JournalFile;
import dev.vigil.launcher.internal.StatusFile;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.worker.engine.DiskRunDirectories;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.ProtocolClient;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scenario's {@link Stack} on the real stack: daemons of {@code vigil.jar} (copies that report the
 * scenario's builds, {@link JarBuilds}) started with {@code vigil up} on an H2 file in a fresh home,
 * real worker hosts running the {@link ScriptedWorker} type from this module's test classes, real
 * {@code kill -9}, SIGTERM, SIGSTOP, real time at the scale of {@link BridgeTimeouts}. The daemon's
 * decisions are read from its journal ({@code logs/journal.jsonl}); commands go over its socket as
 * the CLI sends them; the store is opened directly only while no daemon runs.
 */
public final class RealStack implements Stack {
  private static final Pattern REFUSED_PID = Pattern.compile("\\(pid ([0-9]+)\\)");
  private static final long GONE_S = 30;
  /** How long a watch is given to relaunch a lost daemon (it tries at once; its JVM may start slowly), ms. */
  private static final long WATCH_MS = 15_000;

  private final Path dir;
  private final Scenario.Config config;
  private final JarBuilds builds;
  private final Map<String, Build> jars = new HashMap<>();
  private final Home home;
  private final Path configFile;
  private final List<ObjectNode> journal = new ArrayList<>();
  private final Set<Long> daemons = new LinkedHashSet<>();
  private final List<Process> children = new ArrayList<>();
  private long journalOffset;
  private byte[] partial = new byte[0];
  private long daemonPid = -1;
  private String label = "b1";
  private int items;
  private Snapshot finished;

  public RealStack(Path dir, Scenario.Config config) throws IOException {
    this.dir = dir;
    this.config = config;
    this.builds = new JarBuilds(dir);
    this.home = new Home(builds.home("home"));
    this.configFile = dir.resolve("vigil.json");
    Files.writeString(configFile, Wire.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(configJson(config)));
  }

  /** The daemon's configuration: the scenario's lanes and services, the scripted type, the bridge's timeouts. */
  static ObjectNode configJson(Scenario.Config config) {
    ObjectNode c = Wire.JSON.createObjectNode();
    ObjectNode lanes = c.putObject("lanes");
    config.lanes().forEach((l, n) -> lanes.putObject(l).put("concurrency", n));
    c.put("maxAttempts", config.maxAttempts());
    c.putObject("retry").put("backoffBase", BridgeTimeouts.RETRY.backoffBaseMs() + "ms")
        .put("backoffCap", BridgeTimeouts.RETRY.backoffCapMs() + "ms");
    ObjectNode scripted = c.putObject("workerTypes").putObject(ScriptedWorker.NAME);
    scripted.put("class", ScriptedWorker.class.getName());
    scripted.putArray("classpath").add(testClasses().toString());
    ArrayNode services = c.putArray("services");
    config.services().forEach((name, table) -> {
      ObjectNode s = services.addObject();
      s.put("name", name);
      s.put("type", ScriptedWorker.NAME);
      ObjectNode t = s.putObject("payload").putObject("launches");
      table.forEach((n, b) -> t.put(n, b.toString()));
    });
    c.set("timeouts", BridgeTimeouts.json());
    c.put("restartGiveUpCount", BridgeTimeouts.LATTICE.restartGiveUpCount());
    return c;
  }

  /** Where this module's test classes (the scripted worker type) are. */
  static Path testClasses() {
    try {
      return Path.of(ScriptedWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String name() {
    return "real stack";
  }

  private Build jar(String build) {
    return jars.computeIfAbsent(build, b -> {
      try {
        return builds.build(config.version(b), config.buildId(b));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  // ---- the daemon ----

  @Override
  public void boot(String build) {
    if (up()) {
      throw new IllegalStateException("a daemon serves already");
    }
    JarBuilds.Result r = run(jar(build), "up", "--config", configFile.toString());
    if (r.code() != 0 || !r.out().matches("pid [0-9]+")) {
      throw new AssertionError("vigil up: exit " + r.code() + ": " + r.out() + r.err() + daemonLog());
    }
    serving(Long.parseLong(r.out().substring("pid ".length())), build);
  }

  private void serving(long pid, String build) {
    daemonPid = builds.track(pid);
    daemons.add(pid);
    label = build;
  }

  private JarBuilds.Result run(Build b, String... args) {
    try {
      return builds.run(b, home.dir(), args);
    } catch (Exception e) {
      throw new AssertionError("vigil " + String.join(" ", args) + ": " + e, e);
    }
  }

  private String daemonLog() {
    try {
      List<String> l = Files.readAllLines(home.logs().resolve("daemon.log"));
      return "\n  daemon.log: " + String.join("\n  ", l.subList(Math.max(0, l.size() - 20), l.size()));
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void crash() {
    requireUp();
    ProcessHandle.of(daemonPid).ifPresent(ProcessHandle::destroyForcibly);
    awaitGone(daemonPid);
  }

  @Override
  public void sigterm() {
    requireUp();
    ProcessHandle.of(daemonPid).ifPresent(ProcessHandle::destroy);
    awaitGone(daemonPid);
  }

  @Override
  public void suspend(long ms) {
    requireUp();
    signal("-STOP", daemonPid);
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      signal("-CONT", daemonPid);
    }
  }

  private static void signal(String sig, long pid) {
    try {
      new ProcessBuilder("kill", sig, Long.toString(pid)).start().waitFor();
    } catch (IOException | InterruptedException e) {
      throw new AssertionError("kill " + sig + " " + pid + ": " + e, e);
    }
  }

  private static void awaitGone(long pid) {
    try {
      JarBuilds.await("pid " + pid + " is gone", GONE_S, () -> !JarBuilds.alive(pid));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean up() {
    return daemonPid > 0 && JarBuilds.alive(daemonPid);
  }

  @Override
  public long daemonPid() {
    return daemonPid;
  }

  private void requireUp() {
    if (!up()) {
      throw new IllegalStateException("no daemon serves");
    }
  }

  private ObjectNode call(Message.ToDaemon m, long waitMs) {
    try {
      return Control.call(home.socket(), m, waitMs);
    } catch (Control.NoDaemon e) {
      throw new AssertionError("no daemon answered: " + e.getMessage(), e);
    }
  }

  @Override
  public ObjectNode command(String op, ObjectNode args) {
    requireUp();
    return call(new Message.Command(op, args), 60_000);
  }

  @Override
  public ObjectNode shutdown(boolean ifIdle) {
    requireUp();
    ObjectNode reply = call(new Message.Shutdown(ifIdle), 120_000);
    if (reply.path("kind").asText().equals("ShuttingDown")) {
      awaitGone(daemonPid);
    }
    return reply;
  }

  @Override
  public void killWorker(RunId run) {
    JsonNode runs = show(run).path("runs");
    long pid = -1;
    for (JsonNode r : runs) {
      if (r.path("id").asText().equals(run.toString())) {
        pid = r.path("pid").asLong(-1);
      }
    }
    if (pid <= 0 || !JarBuilds.alive(pid)) {
      throw new IllegalStateException("the worker of " + run + " is not alive (pid " + pid + ")");
    }
    long p = pid;
    ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly);
    awaitGone(p);
  }

  @Override
  public void tell(RunId run, boolean fork) {
    Path f = RunDirectory.of(home.dir(), run.toString()).path().resolve(fork ? ScriptedWorker.FORK_TOLD : ScriptedWorker.TOLD);
    try {
      Files.writeString(f, "told", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean workerBegan(RunId run) {
    return java.nio.file.Files.exists(home.runs().resolve(run.toString()).resolve(ScriptedWorker.BEGUN));
  }

  @Override
  public boolean workerAlive(RunId run) {
    for (JsonNode r : show(run).path("runs")) {
      JsonNode id = r.path("start").path("identity");
      if (r.path("id").asText().equals(run.toString()) && id.isObject()) {
        return Processes.groupAlive(new ProcessIdentity(id.path("bootId").asText(), id.path("pid").asLong(),
            id.path("startTicks").asLong(), id.path("pgid").asLong()));
      }
    }
    return false;
  }

  private JsonNode show(RunId run) {
    if (up()) {
      ObjectNode a = Wire.JSON.createObjectNode();
      a.put("ticket", run.ticket().toString());
      return command("show", a).path("ticket");
    }
    return store(c -> {
      ObjectNode o = Wire.JSON.createObjectNode();
      ArrayNode runs = o.putArray("runs");
      c.store().runsOf(run.ticket()).forEach(r -> runs.add(Wire.run(r)));
      return o;
    });
  }

  private Optional<ProcessIdentity> serviceIdentity(String service) {
    IdentityRecord r = new DiskRunDirectories(home.dir()).identity(new WorkerKey.Service(service));
    return r instanceof IdentityRecord.Written w ? Optional.of(w.identity()) : Optional.empty();
  }

  @Override
  public void killService(String service) {
    ProcessIdentity id = serviceIdentity(service).filter(Processes::alive)
        .orElseThrow(() -> new IllegalStateException("no worker of service " + service + " lives"));
    ProcessHandle.of(id.pid()).ifPresent(ProcessHandle::destroyForcibly);
    awaitGone(id.pid());
  }

  @Override
  public boolean serviceWorkerAlive(String service) {
    return serviceIdentity(service).map(Processes::groupAlive).orElse(false);
  }

  @Override
  public void serviceWork(String service, long ms) {
    Path inbox = RunDirectory.of(home.dir(), DiskRunDirectories.nameOf(new WorkerKey.Service(service))).path()
        .resolve(ScriptedWorker.INBOX);
    try {
      Files.createDirectories(inbox);
      Path tmp = inbox.resolve(String.format("%06d.tmp", ++items));
      Files.writeString(tmp, Long.toString(ms), StandardCharsets.UTF_8);
      Files.move(tmp, inbox.resolve(String.format("%06d.item", items)), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean busyRecord(String service) {
    return new DiskRunDirectories(home.dir()).latestBusy(new WorkerKey.Service(service))
        .map(RevivalGate.BusyRecord::busy).orElse(false);
  }

  @Override
  public void pass(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public long nowWallMs() {
    return System.currentTimeMillis();
  }

  @Override
  public <T> T store(Function<Coordination, T> f) {
    if (up()) {
      throw new IllegalStateException("the store is the daemon's while it serves");
    }
    try (H2Coordination h2 = open(home.databaseFile())) {
      return f.apply(h2);
    }
  }

  /**
   * Opens the store of a daemon that just died. A killed JVM's pid reads as gone (a zombie) while
   * its last threads still exit and hold the file's lock for a few ms more: the open is retried.
   */
  static H2Coordination open(Path file) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        return H2Coordination.open(file, H2Options.defaults().withRetryPolicy(BridgeTimeouts.RETRY));
      } catch (dev.vigil.coordination.h2.CoordinationStoreException e) {
        if (System.nanoTime() > deadline || !String.valueOf(e.getMessage()).contains("in use")) {
          throw e;
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  @Override
  public ProcessIdentity liveIdentity() {
    return Processes.self();
  }

  @Override
  public ProcessIdentity deadIdentity() {
    ProcessIdentity self = Processes.self();
    return new ProcessIdentity(self.bootId(), self.pid(), self.startTicks() + 1, self.pid() + 1);
  }

  @Override
  public String forgeHello(RunId run) {
    requireUp();
    try (ProtocolClient c = ProtocolClient.connect(home.socket())) {
      c.send(new Message.Hello(new Subject.Run(run.toString()), RunToken.generate(), config.buildId(label),
          ProcessHandle.current().pid()));
      Optional<Message.FromDaemon> r = c.next(10_000);
      return r.isPresent() && r.get() instanceof Message.Welcome ? "accepted" : "refused";
    } catch (IOException e) {
      return "refused";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public Optional<JsonNode> statusFile() {
    return new StatusFile(home.statusFile()).readJson();
  }

  @Override
  public Optional<Long> secondDaemon() {
    Path out = dir.resolve("second.out");
    Path err = dir.resolve("second.err");
    try {
      Process p = builds.start(jar(label), home.dir(), out, err, "daemon", "--config", configFile.toString());
      children.add(p);
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      Matcher m = REFUSED_PID.matcher(Files.readString(err));
      return p.exitValue() == 3 && m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static String firstLine(String err) {
    return err.lines().filter(l -> l.startsWith("vigil: ")).findFirst().orElse("");
  }

  @Override
  public Told up(String build) {
    JarBuilds.Result r = run(jar(build), "up", "--config", configFile.toString());
    long pid = r.code() == 0 && r.out().matches("pid [0-9]+") ? Long.parseLong(r.out().substring(4)) : -1;
    if (pid > 0 && pid != daemonPid) {
      if (daemonPid > 0) {
        awaitGone(daemonPid);
      }
      serving(pid, build);
    }
    return new Told(r.code(), pid, firstLine(r.err()));
  }

  @Override
  public Told clientStatus(String build) {
    JarBuilds.Result r = run(jar(build), "status", "--json");
    return new Told(r.code(), -1, firstLine(r.err()));
  }

  @Override
  public Optional<Long> watch(String build) {
    long lost = daemonPid;
    Process w;
    try {
      w = builds.start(jar(build), home.dir(), dir.resolve("watch.out"), dir.resolve("watch.err"), "watch");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    children.add(w);
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WATCH_MS);
      while (System.nanoTime() < deadline) {
        Optional<Long> pid = servingPid();
        if (pid.isPresent() && pid.get() != lost) {
          serving(pid.get(), build);
          return pid;
        }
        Thread.sleep(100);
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } finally {
      w.destroyForcibly();
    }
  }

  private Optional<Long> servingPid() {
    return Control.servingPid(home.socket());
  }

  // ---- the journal ----

  @Override
  public List<ObjectNode> journal() {
    Path f = home.logs().resolve(JournalFile.NAME);
    if (!Files.exists(f)) {
      return journal;
    }
    try (RandomAccessFile in = new RandomAccessFile(f.toFile(), "r")) {
      long end = in.length();
      if (end <= journalOffset) {
        return journal;
      }
      byte[] chunk = new byte[(int) (end - journalOffset)];
      in.seek(journalOffset);
      in.readFully(chunk);
      journalOffset = end;
      byte[] all = new byte[partial.length + chunk.length];
      System.arraycopy(partial, 0, all, 0, partial.length);
      System.arraycopy(chunk, 0, all, partial.length, chunk.length);
      int start = 0;
      for (int i = 0; i < all.length; i++) {
        if (all[i] == '\n') {
          String line = new String(all, start, i - start, StandardCharsets.UTF_8);
          journal.add((ObjectNode) Wire.JSON.readTree(line));
          start = i + 1;
        }
      }
      partial = java.util.Arrays.copyOfRange(all, start, all.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return journal;
  }

  // ---- the end ----

  @Override
  public Snapshot finish() {
    if (finished != null) {
      return finished;
    }
    for (Process p : children) {
      p.destroyForcibly();
    }
    for (long pid : daemons) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      awaitGone(pid);
    }
    // a daemon a watch relaunched after its time was up: the one daemon.json names, if it lives
    new StatusFile(home.statusFile()).recorded().filter(StatusFile.Recorded::alive).ifPresent(d -> {
      ProcessHandle.of(d.pid()).ifPresent(ProcessHandle::destroyForcibly);
      awaitGone(d.pid());
    });
    List<ProcessIdentity> workers = new ArrayList<>();
    for (ObjectNode e : journal()) {
      if (e.path("event").asText().equals("Launched")) {
        JsonNode id = e.path("identity");
        workers.add(new ProcessIdentity(id.path("bootId").asText(), id.path("pid").asLong(),
            id.path("startTicks").asLong(), id.path("pgid").asLong()));
      }
    }
    for (ProcessIdentity id : workers) {
      Processes.signalWhatIsLeft(id, GroupSignal.KILL);
    }
    try {
      JarBuilds.await("every worker is gone", GONE_S, () -> workers.stream().noneMatch(Processes::groupAlive));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    daemonPid = -1;
    finished = store(c -> c.store().snapshot());
    return finished;
  }

  @Override
  public void close() {
    finish();
  }
}
