package dev.vigil.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.PackageMatcher;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A small public surface (DESIGN.md §2), checked on the compiled classes of every module, main
 * and test alike, as the reactor built them. A class belongs to the module whose build directory it
 * was read from, so a test in another module is held to the same rules as that module's main code.
 *
 * <ol>
 *   <li>A package matching {@code ..internal..} is used only by its own module (the launcher's by the
 *       launcher and its own tests; examples and other modules' tests included in "outside"). One
 *       exception: bridge-tests' tests drive the real daemon and read its home through the launcher's
 *       own home layout, status file, wire format and journal ({@link #BRIDGE_MAY_READ}), so that a transcript reads
 *       exactly what the launcher writes; nothing else of bridge-tests may.
 *   <li>Outside supervisor-core, the engine is used through its root package (the engine, its commands,
 *       replies, status and configuration) and {@code dev.vigil.supervisor.engine.port..} (the ports)
 *       only: any other package under {@code dev.vigil.supervisor.engine} is the engine's own.
 *   <li>No other module uses a main class of supervisor-core that is visible in its own package only
 *       (the engine's internals), whatever package it puts itself in; the protected parts of the port
 *       contracts are for their subclasses in other modules. The simulation's fakes in
 *       supervisor-core's test jar are shared with the bridge on purpose and are not internals.
 * </ol>
 *
 * Module-info descriptors would say the same at compile time, but do not fit this build: the port
 * contracts shipped in supervisor-core's test jar live in {@code dev.vigil.supervisor.engine}, a
 * package split with the named module when worker-runtime's tests compile against both; and the
 * tests start real worker hosts and CLIs with {@code -cp ${java.class.path}}, which on the module path
 * no longer holds the main modules.
 */
class ArchitectureTest {
  /** Each module of the reactor, by its directory. */
  private static final List<String> MODULES = List.of("coordination-api", "coordination-h2", "supervisor-core",
      "worker-runtime", "examples", "launcher", "bridge-tests");
  private static final String ENGINE = "dev.vigil.supervisor.engine";
  /** The launcher internals bridge-tests may read: how a home is laid out, the wire format, the journal. */
  private static final List<String> BRIDGE_MAY_READ = List.of("dev.vigil.launcher.internal.Home",
      "dev.vigil.launcher.internal.Wire", "dev.vigil.launcher.internal.JournalFile",
      "dev.vigil.launcher.internal.StatusFile");

  private static JavaClasses classes;
  private static final Map<String, String> MODULE_OF_LOCATION = new TreeMap<>();
  private static final List<String> MAIN_LOCATIONS = new ArrayList<>();

  @BeforeAll
  static void importEveryModule() {
    List<Path> dirs = new ArrayList<>();
    for (String m : MODULES) {
      for (String kind : List.of("classes", "test-classes")) {
        Path dir = Path.of("..", m, "target", kind).toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(dir), "the reactor built " + dir);
        dirs.add(dir);
        MODULE_OF_LOCATION.put(dir.toUri().toString(), m);
        if (kind.equals("classes")) {
          MAIN_LOCATIONS.add(dir.toUri().toString());
        }
      }
    }
    classes = new ClassFileImporter().importPaths(dirs);
    for (String m : MODULES) {
      assertTrue(classes.stream().anyMatch(c -> m.equals(module(c))), "classes of " + m + " were read");
    }
  }

  /** The module whose build directory {@code c} was read from, or empty for a class of no module. */
  private static String module(JavaClass c) {
    Optional<String> uri = c.getSource().map(s -> s.getUri().toString());
    if (uri.isEmpty()) {
      return "";
    }
    for (Map.Entry<String, String> e : MODULE_OF_LOCATION.entrySet()) {
      if (uri.get().startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    return "";
  }

  /** Whether {@code c} was read from a module's main classes (not its tests). */
  private static boolean main(JavaClass c) {
    Optional<String> uri = c.getSource().map(s -> s.getUri().toString());
    return uri.isPresent() && MAIN_LOCATIONS.stream().anyMatch(uri.get()::startsWith);
  }

  private static final DescribedPredicate<JavaClass> IN_SUPERVISOR_CORE =
      DescribedPredicate.describe("in supervisor-core", c -> module(c).equals("supervisor-core"));

  private static final DescribedPredicate<JavaClass> IN_SUPERVISOR_CORE_MAIN =
      DescribedPredicate.describe("in supervisor-core's main classes", c -> IN_SUPERVISOR_CORE.test(c) && main(c));

  /** Visible in its own package only: neither it nor an enclosing class is public or protected. */
  private static final DescribedPredicate<JavaClass> PACKAGE_PRIVATE = DescribedPredicate.describe(
      "are visible in their own package only", ArchitectureTest::packagePrivate);

  private static boolean packagePrivate(JavaClass c) {
    for (Optional<JavaClass> k = Optional.of(c); k.isPresent(); k = k.get().getEnclosingClass()) {
      if (!k.get().getModifiers().contains(JavaModifier.PUBLIC) && !k.get().getModifiers().contains(JavaModifier.PROTECTED)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void anInternalPackageIsUsedOnlyByItsOwnModule() {
    PackageMatcher internal = PackageMatcher.of("..internal..");
    AtomicInteger seen = new AtomicInteger();
    ArchCondition<JavaClass> ownModuleOnly = new ArchCondition<>("use an internal package only of their own module") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = d.getTargetClass();
          if (!internal.matches(target.getPackageName()) || module(target).isEmpty()) {
            continue;
          }
          seen.incrementAndGet();
          boolean bridgeReads = module(origin).equals("bridge-tests")
              && BRIDGE_MAY_READ.contains(target.getName().replaceFirst("\\$.*", ""));
          if (!module(target).equals(module(origin)) && !bridgeReads) {
            events.add(SimpleConditionEvent.violated(d, module(origin) + " uses " + module(target) + "'s internal "
                + target.getName() + ": " + d.getDescription()));
          }
        }
      }
    };
    classes().should(ownModuleOnly).check(classes);
    assertTrue(seen.get() > 0, "the rule looked at real uses of internal packages (inside their modules)");
  }

  @Test
  void outsideSupervisorCore_theEngineIsUsedThroughItsRootPackageAndItsPortsOnly() {
    noClasses().that(DescribedPredicate.not(IN_SUPERVISOR_CORE))
        .should().dependOnClassesThat(DescribedPredicate.describe(
            "are in a package under " + ENGINE + " other than " + ENGINE + ".port..",
            c -> c.getPackageName().startsWith(ENGINE + ".")
                && !PackageMatcher.of(ENGINE + ".port..").matches(c.getPackageName())))
        .check(classes);
    assertTrue(classes.stream().filter(c -> !IN_SUPERVISOR_CORE.test(c)).anyMatch(c -> c.getDirectDependenciesFromSelf()
        .stream().anyMatch(d -> d.getTargetClass().getPackageName().startsWith(ENGINE))),
        "other modules do use the engine, so the rule looked at real uses");
  }

  @Test
  void noOtherModuleUsesAPackagePrivateClassOfSupervisorCore() {
    noClasses().that(DescribedPredicate.not(IN_SUPERVISOR_CORE))
        .should().dependOnClassesThat(IN_SUPERVISOR_CORE_MAIN.and(PACKAGE_PRIVATE))
        .check(classes);
    assertTrue(classes.stream().anyMatch(c -> IN_SUPERVISOR_CORE_MAIN.test(c) && PACKAGE_PRIVATE.test(c)
        && c.getPackageName().equals(ENGINE)), "supervisor-core has engine internals to protect");
  }
}
