package dev.vigil.worker.host;

import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.protocol.RunToken;

/**
 * The worker host process (DESIGN.md §5): {@code java <WorkerArgs.FAST_START_FLAGS> -cp … 
 * dev.vigil.worker.host.WorkerMain <WorkerArgs.toArgv()>}, started by the daemon through
 * {@code Processes.launch} in its own session.
 *
 * <p>Inputs: the arguments of {@link WorkerArgs} (ids, the type, the daemon's build, the socket and
 * timeouts; no secrets); the run token in the environment variable {@code VIGIL_RUN_TOKEN} (C9);
 * the payload in {@code <home>/runs/<run>/payload.json}, written by the daemon before the launch
 * (absent: an empty object). The run directory must exist ({@code RunDirectory.create}).
 *
 * <p>The directory and environment recorded with a task's ticket come in the environment variable
 * {@code VIGIL_RUN_SETTINGS} ({@link RunSettings}), read once here and never passed on.
 *
 * <p>Exit status: once the outcome is written, the exit status of the command the run stands for
 * (its code, or 128 + the signal that ended it) when the type reported one, else 0; 1 host failure;
 * 2 bad arguments or no token; 3 the reservation is held by another process; 4 never confirmed, no
 * work done (Q3); 5 supervisor lost past the window or adoption denied after the start, no outcome,
 * work resumable (S4, S6). Killed by TERM: 143 after the teardown; the outcome is written if the type
 * returned one in time.
 *
 * <p>The life it follows is described on the host's state machine ({@code Host}).
 */
public final class WorkerMain {
  private WorkerMain() {}

  /** The first argument of a JVM that only plays a host start for the class archive ({@link ArchiveTraining}). */
  public static final String TRAIN_ARCHIVE = "--train-archive";

  /** The system property that names the NIO selector provider; without it the JDK searches the classpath for one. */
  static final String SELECTOR_PROVIDER = "java.nio.channels.spi.SelectorProvider";
  /** The JDK's own selector provider on Linux: what it uses when the search finds none. */
  static final String LINUX_SELECTOR_PROVIDER = "sun.nio.ch.EPollSelectorProvider";

  public static void main(String[] argv) throws InterruptedException {
    HostLogProvider.select(); // before any class makes a logger
    if (argv.length == 2 && argv[0].equals(TRAIN_ARCHIVE)) {
      selectorProvider(WorkerTypeSpec.Command.DEFAULT, System.getProperty(SELECTOR_PROVIDER))
          .ifPresent(p -> System.setProperty(SELECTOR_PROVIDER, p));
      int status;
      try {
        status = ArchiveTraining.run(java.nio.file.Path.of(argv[1]));
      } catch (java.io.IOException | RuntimeException e) {
        System.err.println("vigil-worker: the archive training failed: " + e);
        status = Host.FAILED;
      }
      // the daemon deletes its training directory too, but a daemon that ended meanwhile never does
      dev.vigil.worker.process.StartArchive.deleteTrainingDirectory(java.nio.file.Path.of(argv[1]));
      System.exit(status);
      return;
    }
    WorkerArgs args;
    try {
      args = WorkerArgs.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("vigil-worker: " + e.getMessage());
      System.exit(Host.USAGE);
      return;
    }
    selectorProvider(args.implementation(), System.getProperty(SELECTOR_PROVIDER))
        .ifPresent(p -> System.setProperty(SELECTOR_PROVIDER, p)); // before the socket is opened
    String token = System.getenv(RunToken.ENV);
    if (token == null || token.isEmpty()) {
      System.err.println("vigil-worker: " + RunToken.ENV + " is not set (the run token comes only from the environment)");
      System.exit(Host.USAGE);
      return;
    }
    RunSettings settings;
    try {
      settings = RunSettings.decode(System.getenv(RunSettings.ENV));
    } catch (IllegalArgumentException e) {
      System.err.println("vigil-worker: " + e.getMessage());
      System.exit(Host.USAGE);
      return;
    }
    Host host = new Host(args, token, settings);
    int status = host.run();
    host.markSelfExit();
    System.exit(status);
  }

  /**
   * The selector provider a host of {@code implementation} names before it opens its socket, when
   * {@code named} (the property's value) is empty: the JDK's own on Linux, for the built-in command
   * type. The JDK finds a provider by searching every jar of the classpath for a service entry, which
   * made a host read the whole directory of Vigil's jar (thousands of entries) for an answer known
   * beforehand: Vigil's jars install no provider. A custom type's classpath may hold one, so its host
   * lets the JDK search as before; so does a JDK without that class (another system).
   */
  static java.util.Optional<String> selectorProvider(WorkerTypeSpec.Implementation implementation, String named) {
    if (named != null || !(implementation instanceof WorkerTypeSpec.Command)) {
      return java.util.Optional.empty();
    }
    try {
      Class<?> c = Class.forName(LINUX_SELECTOR_PROVIDER, false, null);
      return java.nio.channels.spi.SelectorProvider.class.isAssignableFrom(c) ? java.util.Optional.of(LINUX_SELECTOR_PROVIDER)
          : java.util.Optional.empty();
    } catch (ClassNotFoundException e) {
      return java.util.Optional.empty();
    }
  }
}
