package dev.vigil.supervisor.engine;

import dev.vigil.coordination.WorkerTypeName;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the worker host runs one configured worker type (DESIGN.md §5, §9): the built-in command type,
 * or a declared class of the worker SPI, loaded from Vigil's own classpath plus this type's entries.
 * Every launch of the type carries this value ({@link LaunchRequest}), so whatever path a ticket or
 * session came by, its worker runs with the type's configuration.
 *
 * @param name           the name tickets and services give ({@link WorkerTypeName})
 * @param implementation what the worker host runs
 * @param classpath      entries added to Vigil's own classpath for this type's workers only (other
 *                       types never see them); empty for the built-in type
 * @param resumable      whether each attempt of a ticket of this type receives the ticket's latest
 *                       checkpoint (Q17, {@code dev.vigil.coordination.Resumption}); only a declared
 *                       class can be: the daemon runs no code of a type, so the configuration says it
 */
public record WorkerTypeSpec(String name, Implementation implementation, List<String> classpath, boolean resumable) {
  /** The name of the built-in command type. */
  public static final String COMMAND = "command";

  /** What a worker host runs for a type. */
  public sealed interface Implementation permits Command, Declared {}

  /**
   * The built-in type that runs an OS command and maps its exit status to a verdict.
   *
   * @param stallExitCode the exit code that means STALLED (a quota was hit, Q2), 1-255; a ticket's
   *                      payload may name another for itself
   */
  public record Command(int stallExitCode) implements Implementation {
    /** The exit code that means STALLED unless a configuration names another ({@code EX_TEMPFAIL}). */
    public static final int DEFAULT_STALL_EXIT_CODE = 75;
    /** The built-in type with the default stall exit code. */
    public static final Command DEFAULT = new Command(DEFAULT_STALL_EXIT_CODE);

    public Command {
      if (stallExitCode < 1 || stallExitCode > 255) {
        throw new IllegalArgumentException("stallExitCode (" + stallExitCode + ") must be between 1 and 255");
      }
    }
  }

  /**
   * A class of the worker SPI ({@code dev.vigil.worker.WorkerType}) with a public no-argument
   * constructor; the daemon checks at start that it loads from the type's classpath, and the worker
   * host instantiates exactly this class.
   *
   * @param className its binary name, e.g. {@code com.example.MyWorker}
   */
  public record Declared(String className) implements Implementation {
    private static final Pattern BINARY_NAME =
        Pattern.compile("(\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*\\.)*"
            + "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*");

    public Declared {
      Objects.requireNonNull(className, "className");
      if (!BINARY_NAME.matcher(className).matches()) {
        throw new IllegalArgumentException("class '" + className + "' must be a Java class name such as com.example.MyWorker");
      }
    }
  }

  /** A type that is not resumable. */
  public WorkerTypeSpec(String name, Implementation implementation, List<String> classpath) {
    this(name, implementation, classpath, false);
  }

  public WorkerTypeSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(implementation, "implementation");
    Objects.requireNonNull(classpath, "classpath");
    new WorkerTypeName(name); // validates the name
    classpath = List.copyOf(classpath);
    if (implementation instanceof Command && !classpath.isEmpty()) {
      throw new IllegalArgumentException("classpath is for a type with a class; the built-in command type has none");
    }
    if (resumable && implementation instanceof Command) {
      throw new IllegalArgumentException("resumable is for a type with a class; the built-in command type cannot"
          + " save checkpoints");
    }
    for (String entry : classpath) {
      if (entry.isBlank()) {
        throw new IllegalArgumentException("classpath entries must not be blank");
      }
    }
  }

  /** The built-in command type under its own name, with the default stall exit code. */
  public static WorkerTypeSpec command() {
    return new WorkerTypeSpec(COMMAND, Command.DEFAULT, List.of());
  }

  /** This type, resumable or not (Q17). */
  public WorkerTypeSpec resumable(boolean resumable) {
    return new WorkerTypeSpec(name, implementation, classpath, resumable);
  }

  /** A declared class of the worker SPI called {@code name}, loaded with {@code classpath}. */
  public static WorkerTypeSpec declared(String name, String className, List<String> classpath) {
    return new WorkerTypeSpec(name, new Declared(className), classpath);
  }
}
